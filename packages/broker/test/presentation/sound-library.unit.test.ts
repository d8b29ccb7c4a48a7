import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  MAX_SOUND_BYTES,
  SoundLibrary,
  SoundTooLarge,
  sniffFormat,
} from "../../src/presentation/sounds/sound-library.js";
import { splitCommand } from "../../src/presentation/sounds/sound-player.js";
import { BUILT_IN_TONES, SAMPLE_RATE, toneSamples, wavFile } from "../../src/presentation/sounds/tones.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function library(): SoundLibrary {
  const dir = mkdtempSync(join(tmpdir(), "notify-sounds-"));
  dirs.push(dir);
  return new SoundLibrary(dir);
}

/** An MPEG-1 Layer III frame header (sync, 128 kbit/s, 44.1 kHz) followed by silence. */
const MP3_FRAME = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(413)]);
const peak = (samples: Int16Array) => samples.reduce((max, value) => Math.max(max, Math.abs(value)), 0);

describe("built-in tones (docs/desktop.md, 'Local presentation rules', rule 6), synthesized in code", () => {
  it.each(BUILT_IN_TONES)("%s is a playable 16-bit mono WAV, louder with volume", (tone) => {
    const loud = toneSamples(tone, 100);
    const soft = toneSamples(tone, 20);
    expect(loud.length).toBeGreaterThan(SAMPLE_RATE / 10);
    expect(peak(loud)).toBeGreaterThan(10_000);
    expect(peak(soft)).toBeLessThan(peak(loud) * 0.25);
    expect(peak(toneSamples(tone, 0))).toBe(0);
    const file = wavFile(loud);
    expect(file.toString("latin1", 0, 4)).toBe("RIFF");
    expect(file.toString("latin1", 8, 16)).toBe("WAVEfmt ");
    expect(file.readUInt32LE(40)).toBe(loud.length * 2);
    expect(sniffFormat(file)).toBe("wav");
  });

  it("the four tones differ", () => {
    const signatures = BUILT_IN_TONES.map((tone) => `${toneSamples(tone, 100).length}:${peak(toneSamples(tone, 100))}`);
    expect(new Set(signatures).size).toBe(4);
  });
});

describe("imported sounds are checked by their bytes", () => {
  const wav = wavFile(toneSamples("ping", 100));

  it("a real WAV and a real MP3 (ID3 tag or frame header) are taken and listed", () => {
    const sounds = library();
    expect(sounds.import("Bell.wav", wav)).toEqual({
      name: "bell",
      format: "wav",
      bytes: wav.length,
      sha256: createHash("sha256").update(wav).digest("hex"),
    });
    expect(sounds.import("horn.mp3", MP3_FRAME)).toMatchObject({ name: "horn", format: "mp3" });
    const id3 = Buffer.concat([Buffer.from("ID3\x04\x00\x00\x00\x00\x00\x00", "latin1"), MP3_FRAME]);
    expect(sounds.import("tagged.mp3", id3)).toMatchObject({ name: "tagged", format: "mp3" });
    expect(sounds.list().map((sound) => sound.name)).toEqual(["bell", "horn", "tagged"]);
    expect(readFileSync(join(sounds.directory, "bell.wav")).equals(wav)).toBe(true);
  });

  it.each([
    ["lie.mp3", () => wav, "lie.mp3 is not a MP3 file: its bytes are WAV data"],
    ["lie.wav", () => MP3_FRAME, "lie.wav is not a WAV file: its bytes are MP3 data"],
    [
      "text.wav",
      () => Buffer.from("hello, I am a text file"),
      "text.wav is not a WAV file: its bytes are neither WAV nor MP3",
    ],
    ["song.ogg", () => Buffer.from("OggS"), "song.ogg: a sound file must be .wav or .mp3"],
    ["noext", () => wav, "noext: a sound file must be .wav or .mp3"],
    ["chime.wav", () => wav, "chime.wav: chime is a built-in sound name"],
    ["../evil.wav", () => wav, "../evil.wav: a sound name is 1-64 letters, digits, hyphens or underscores"],
  ])("%s is refused with a clear error", (fileName, bytes, message) => {
    const sounds = library();
    expect(() => sounds.import(fileName, bytes())).toThrow(message);
    expect(sounds.list()).toEqual([]);
  });

  it("a file over 10 MB is refused", () => {
    const big = Buffer.alloc(MAX_SOUND_BYTES + 1);
    wav.copy(big);
    expect(() => library().import("big.wav", big)).toThrow(SoundTooLarge);
    const exact = Buffer.alloc(MAX_SOUND_BYTES);
    wav.copy(exact);
    expect(library().import("exact.wav", exact).bytes).toBe(MAX_SOUND_BYTES);
  });

  it("volume scales an imported 16-bit WAV into a cached copy; 100 plays the original; an MP3 plays as it is", () => {
    const sounds = library();
    sounds.import("bell.wav", wav);
    sounds.import("horn.mp3", MP3_FRAME);
    const half = sounds.fileFor("bell", 50);
    expect(half?.volumeApplied).toBe(true);
    const scaled = readFileSync(half?.path as string);
    expect(scaled.readInt16LE(44 + 400)).toBe(Math.round(wav.readInt16LE(44 + 400) / 2));
    expect(wav.readInt16LE(44 + 400)).not.toBe(0);
    expect(sounds.fileFor("bell", 100)?.path).toBe(join(sounds.directory, "bell.wav"));
    expect(sounds.fileFor("horn", 40)).toEqual({ path: join(sounds.directory, "horn.mp3"), volumeApplied: false });
    expect(sounds.fileFor("nope", 40)).toBeUndefined();
  });

  it("the per-type choice takes known sounds or none, and null removes it", () => {
    const sounds = library();
    sounds.import("bell.wav", wav);
    expect(sounds.setTypeSounds({ error: "bell", info: "none" })).toEqual({ error: "bell", info: "none" });
    expect(() => sounds.setTypeSounds({ error: "trumpet" })).toThrow(/unknown sound "trumpet"/);
    expect(() => sounds.setTypeSounds({ "Bad-Type": "ping" })).toThrow(/not a valid type ID/);
    expect(sounds.setTypeSounds({ info: null })).toEqual({ error: "bell" });
  });
});

describe("soundCommand", () => {
  it("splits on blanks and keeps quoted parts whole (no shell)", () => {
    expect(splitCommand(`/usr/bin/paplay --volume=30000`)).toEqual(["/usr/bin/paplay", "--volume=30000"]);
    expect(splitCommand(`"/opt/my player/play" -q 'a b'`)).toEqual(["/opt/my player/play", "-q", "a b"]);
  });
});
