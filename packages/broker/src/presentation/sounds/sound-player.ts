import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { basename, delimiter, join } from "node:path";
import type { Logger } from "../../log/logger.js";
import type { SoundLibrary } from "./sound-library.js";

/** docs/desktop.md, "Sounds": the default `soundCommand` is the first of these found on PATH. */
export const DEFAULT_PLAYERS = ["pw-play", "paplay", "aplay"] as const;

export function findOnPath(program: string, path = process.env.PATH ?? ""): string | undefined {
  for (const directory of path.split(delimiter)) {
    if (!directory) continue;
    const candidate = join(directory, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/** Splits a command line on blanks, keeping single- or double-quoted parts whole (no shell is involved). */
export function splitCommand(command: string): string[] {
  const parts: string[] = [];
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (const match of command.matchAll(pattern)) parts.push(match[1] ?? match[2] ?? match[3] ?? "");
  return parts;
}

/** The player's own volume option, for a file whose samples could not be scaled (an MP3, a 24-bit WAV). */
function volumeArguments(program: string, volume: number): string[] {
  const name = basename(program);
  if (name === "pw-play") return [`--volume=${(volume / 100).toFixed(2)}`];
  if (name === "paplay") return [`--volume=${Math.round((volume / 100) * 65536)}`];
  return [];
}

/**
 * Plays sounds through `soundCommand` (a program given the file's path as its last argument). One sound at a time:
 * a burst of notifications plays one sound, not a thousand overlapping ones. Failures are logged once, never thrown.
 */
export class SoundPlayer {
  private playing = false;
  private warned = false;

  constructor(
    private readonly library: SoundLibrary,
    private readonly logger: Logger,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /** Resolves when the player exits (or at once when nothing is played). */
  play(sound: string, volume: number, soundCommand: string | null): Promise<void> {
    if (this.playing || volume <= 0) return Promise.resolve();
    const file = this.library.fileFor(sound, volume);
    if (!file) {
      this.warnOnce(`sound: unknown sound ${JSON.stringify(sound)}; nothing played`);
      return Promise.resolve();
    }
    const command = this.command(soundCommand);
    if (!command) {
      this.warnOnce(`sound: none of ${DEFAULT_PLAYERS.join(", ")} is on PATH and soundCommand is not set; no sounds`);
      return Promise.resolve();
    }
    const [program, ...args] = command;
    if (soundCommand === null && !file.volumeApplied) args.push(...volumeArguments(program as string, volume));
    this.playing = true;
    return new Promise<void>((resolve) => {
      const done = () => {
        this.playing = false;
        resolve();
      };
      try {
        const child = spawn(program as string, [...args, file.path], { stdio: "ignore", env: this.env });
        child.on("error", (error: NodeJS.ErrnoException) => {
          this.warnOnce(`sound: cannot run ${program}: ${error.code ?? error.message}`);
          done();
        });
        child.on("exit", done);
      } catch (error) {
        this.warnOnce(`sound: cannot run ${program}: ${(error as Error).message}`);
        done();
      }
    });
  }

  private command(soundCommand: string | null): string[] | undefined {
    if (soundCommand !== null) {
      const parts = splitCommand(soundCommand);
      return parts.length > 0 ? parts : undefined;
    }
    for (const player of DEFAULT_PLAYERS) {
      const found = findOnPath(player, this.env.PATH);
      if (found) return [found];
    }
    return undefined;
  }

  private warnOnce(message: string): void {
    if (this.warned) return;
    this.warned = true;
    this.logger.warn(message);
  }
}
