import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SOUND_FORMATS, type SoundFormat } from "@notify/contracts/enums";
import { readConfigFile, updateConfigFile } from "../../config/config-file.js";
import { invalid } from "../../domain/errors.js";
import { isTypeId } from "../../notifications/type-ids.js";
import { NO_SOUND } from "../sound-rule.js";
import { BUILT_IN_TONES, isBuiltInTone, toneSamples, wavFile } from "./tones.js";

/** docs/desktop.md, "Local presentation rules", rule 6. */
export const MAX_SOUND_BYTES = 10 * 1024 * 1024;
const NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export interface ImportedSound {
  name: string;
  format: SoundFormat;
  bytes: number;
  /** Hex SHA-256 of the file: `notify apply` uploads only files that differ. */
  sha256: string;
}

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/** Thrown for a file over MAX_SOUND_BYTES (the route answers 413 with this message). */
export class SoundTooLarge extends Error {
  constructor() {
    super("a sound file is at most 10 MB");
  }
}

/** Reads what a file's bytes are, whatever its name says. */
export function sniffFormat(bytes: Uint8Array): SoundFormat | undefined {
  const ascii = (start: number, length: number) =>
    Buffer.from(bytes.subarray(start, start + length)).toString("latin1");
  if (bytes.length >= 12 && ascii(0, 4) === "RIFF" && ascii(8, 4) === "WAVE") return "wav";
  // MP3: an ID3v2 tag, or an MPEG audio frame header (11 sync bits, a valid layer and bitrate) at the start.
  if (bytes.length >= 10 && ascii(0, 3) === "ID3") return "mp3";
  const [first = 0, second = 0, third = 0] = bytes;
  if (bytes.length >= 4 && first === 0xff && (second & 0xe0) === 0xe0) {
    const version = (second >> 3) & 3;
    const layer = (second >> 1) & 3;
    const bitrate = third >> 4;
    if (version !== 1 && layer !== 0 && bitrate !== 0xf) return "mp3";
  }
  return undefined;
}

/**
 * The sounds a toast can play: the four built-in tones (written as WAV files on first use) and files the person
 * imported, kept in `<dataDir>/sounds`; plus the per-type choice, kept in config.json as `typeSounds`.
 */
export class SoundLibrary {
  readonly directory: string;
  private readonly cache: string;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly dataDir: string) {
    this.directory = join(dataDir, "sounds");
    this.cache = join(this.directory, "cache");
  }

  /** Checks a file by its name and its bytes; returns its sound name and format or throws a clear error. */
  check(fileName: string, bytes: Uint8Array): { name: string; format: SoundFormat } {
    const match = /^(.+)\.([A-Za-z0-9]+)$/.exec(fileName);
    const extension = match?.[2]?.toLowerCase();
    if (!match || (extension !== "wav" && extension !== "mp3")) {
      throw invalid(`${fileName}: a sound file must be .wav or .mp3`);
    }
    const name = (match[1] ?? "").toLowerCase();
    if (!NAME_PATTERN.test(name)) {
      throw invalid(`${fileName}: a sound name is 1-64 letters, digits, hyphens or underscores`);
    }
    if (isBuiltInTone(name) || name === NO_SOUND) throw invalid(`${fileName}: ${name} is a built-in sound name`);
    if (bytes.length > MAX_SOUND_BYTES) throw new SoundTooLarge();
    const actual = sniffFormat(bytes);
    if (actual !== extension) {
      const what = actual === undefined ? "neither WAV nor MP3" : `${actual.toUpperCase()} data`;
      throw invalid(`${fileName} is not a ${extension.toUpperCase()} file: its bytes are ${what}`);
    }
    return { name, format: extension };
  }

  /** Imports a checked file, replacing a sound of the same name (whatever its format). */
  import(fileName: string, bytes: Uint8Array): ImportedSound {
    const { name, format } = this.check(fileName, bytes);
    mkdirSync(this.directory, { recursive: true });
    const target = join(this.directory, `${name}.${format}`);
    const temporary = `${target}.${process.pid}.tmp`;
    writeFileSync(temporary, bytes);
    renameSync(temporary, target);
    for (const other of SOUND_FORMATS)
      if (other !== format) rmSync(join(this.directory, `${name}.${other}`), { force: true });
    rmSync(this.cache, { recursive: true, force: true });
    return { name, format, bytes: bytes.length, sha256: sha256(bytes) };
  }

  list(): ImportedSound[] {
    if (!existsSync(this.directory)) return [];
    const sounds: ImportedSound[] = [];
    for (const entry of readdirSync(this.directory).sort()) {
      const match = /^([a-z0-9][a-z0-9_-]{0,63})\.(wav|mp3)$/.exec(entry);
      if (!match) continue;
      const path = join(this.directory, entry);
      sounds.push({
        name: match[1] as string,
        format: match[2] as SoundFormat,
        bytes: statSync(path).size,
        sha256: sha256(readFileSync(path)),
      });
    }
    return sounds;
  }

  /** Removes an imported sound; false when there is none of that name. */
  remove(name: string): boolean {
    const sound = this.list().find((entry) => entry.name === name);
    if (!sound) return false;
    rmSync(join(this.directory, `${sound.name}.${sound.format}`), { force: true });
    rmSync(this.cache, { recursive: true, force: true });
    return true;
  }

  names(): string[] {
    return [...BUILT_IN_TONES, ...this.list().map((sound) => sound.name)];
  }

  /**
   * The file to hand the player for a sound at a volume (1-100): a built-in tone or a 16-bit PCM WAV is written
   * scaled to the volume (cached per volume); another file is played as it is, with `volumeApplied` false so the
   * player can be given the volume instead. Undefined for an unknown sound.
   */
  fileFor(sound: string, volume: number): { path: string; volumeApplied: boolean } | undefined {
    if (isBuiltInTone(sound)) {
      const path = join(this.cache, `${sound}-${volume}.wav`);
      if (!existsSync(path)) this.writeCached(path, wavFile(toneSamples(sound, volume)));
      return { path, volumeApplied: true };
    }
    const imported = this.list().find((entry) => entry.name === sound);
    if (!imported) return undefined;
    const original = join(this.directory, `${imported.name}.${imported.format}`);
    if (volume === 100 || imported.format !== "wav") return { path: original, volumeApplied: volume === 100 };
    const path = join(this.cache, `${imported.name}-${volume}.wav`);
    if (existsSync(path)) return { path, volumeApplied: true };
    const scaled = scalePcm16(readFileSync(original), volume);
    if (!scaled) return { path: original, volumeApplied: false };
    this.writeCached(path, scaled);
    return { path, volumeApplied: true };
  }

  /** Listens for changes of the per-type choice (the presenter applies them at once); returns the unsubscribe. */
  onTypeSoundsChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The per-type choice: type ID to sound name or `none` (config.json `typeSounds`). */
  typeSounds(): Record<string, string> {
    const value = readConfigFile(this.dataDir).typeSounds;
    if (value === null || typeof value !== "object" || Array.isArray(value)) return {};
    const choices: Record<string, string> = {};
    for (const [typeId, sound] of Object.entries(value)) {
      if (isTypeId(typeId) && typeof sound === "string") choices[typeId] = sound;
    }
    return choices;
  }

  /** Sets (or with null removes) the sound of some types; every name must exist. Returns the whole map. */
  setTypeSounds(change: Record<string, string | null>): Record<string, string> {
    const known = new Set([...this.names(), NO_SOUND]);
    for (const [typeId, sound] of Object.entries(change)) {
      if (!isTypeId(typeId)) throw invalid(`${typeId} is not a valid type ID`);
      if (sound !== null && (typeof sound !== "string" || !known.has(sound))) {
        throw invalid(`${typeId}: unknown sound ${JSON.stringify(sound)}; choose one of ${[...known].join(", ")}`);
      }
    }
    updateConfigFile(this.dataDir, (contents) => {
      const current = (contents.typeSounds ?? {}) as Record<string, string>;
      const next: Record<string, string> = { ...current };
      for (const [typeId, sound] of Object.entries(change)) {
        if (sound === null) delete next[typeId];
        else next[typeId] = sound;
      }
      contents.typeSounds = next;
    });
    for (const listener of this.listeners) listener();
    return this.typeSounds();
  }

  private writeCached(path: string, bytes: Buffer): void {
    mkdirSync(this.cache, { recursive: true });
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, bytes);
    renameSync(temporary, path);
  }
}

/** Scales a canonical PCM 16-bit WAV's samples; undefined for any other encoding (played unscaled). */
function scalePcm16(file: Buffer, volume: number): Buffer | undefined {
  let offset = 12;
  let pcm16 = false;
  while (offset + 8 <= file.length) {
    const id = file.toString("latin1", offset, offset + 4);
    const size = file.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === "fmt " && size >= 16 && body + 16 <= file.length) {
      pcm16 = file.readUInt16LE(body) === 1 && file.readUInt16LE(body + 14) === 16;
    } else if (id === "data") {
      if (!pcm16) return undefined;
      const copy = Buffer.from(file);
      const end = Math.min(file.length, body + size) - 1;
      for (let position = body; position < end; position += 2) {
        copy.writeInt16LE(Math.round((file.readInt16LE(position) * volume) / 100), position);
      }
      return copy;
    }
    offset = body + size + (size % 2);
  }
  return undefined;
}
