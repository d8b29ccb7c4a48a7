import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { toneSamples, wavFile } from "../../src/presentation/sounds/tones.js";
import { type CliBroker, runCli, startCliBroker } from "../cli/cli-harness.js";

// Issue 15: import and per-type choice of sounds in `notify apply` (section `sounds`, docs/apply.md).
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function setup() {
  const cli: CliBroker = await startCliBroker();
  cleanups.push(() => cli.close());
  const dir = mkdtempSync(join(tmpdir(), "notify-apply-sounds-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const apply = async (document: unknown, ...flags: string[]) => {
    const file = join(dir, "notify.json");
    writeFileSync(file, JSON.stringify(document));
    return runCli(["apply", file, "--json", ...flags, ...cli.target]);
  };
  return { cli, dir, apply };
}

describe("notify apply: sounds", () => {
  it("uploads files relative to the apply file, sets type sounds, is idempotent, and prunes", async () => {
    const { cli, dir, apply } = await setup();
    writeFileSync(join(dir, "bell.wav"), wavFile(toneSamples("chime", 90)));
    const document = { sounds: { files: { bell: "bell.wav" }, types: { error: "bell", completed: "none" } } };
    const first = await apply(document);
    expect(first.code).toBe(0);
    const summary = JSON.parse(first.stdout) as { counts: Record<string, number> };
    expect(summary.counts).toMatchObject({ create: 3, update: 0, delete: 0 });
    const listing = await cli.api<{ imported: { name: string }[]; typeSounds: Record<string, string> }>(
      "GET",
      "/ui/api/sounds",
    );
    expect(listing.body.imported.map((sound) => sound.name)).toEqual(["bell"]);
    expect(listing.body.typeSounds).toEqual({ error: "bell", completed: "none" });

    const again = JSON.parse((await apply(document)).stdout) as { counts: Record<string, number> };
    expect(again.counts).toMatchObject({ create: 0, update: 0, delete: 0, unchanged: 3 });

    writeFileSync(join(dir, "bell.wav"), wavFile(toneSamples("knock", 90)));
    const changed = JSON.parse((await apply({ sounds: { files: { bell: "bell.wav" } } }, "--prune")).stdout) as {
      counts: Record<string, number>;
    };
    expect(changed.counts).toMatchObject({ update: 1, delete: 2 });
    const after = await cli.api<{ typeSounds: Record<string, string> }>("GET", "/ui/api/sounds");
    expect(after.body.typeSounds).toEqual({});
  });

  it("a file that lies about its type is refused with the broker's message", async () => {
    const { dir, apply } = await setup();
    writeFileSync(join(dir, "horn.mp3"), wavFile(toneSamples("ping", 50)));
    const result = await apply({ sounds: { files: { horn: "horn.mp3" } } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("horn.mp3 is not a MP3 file: its bytes are WAV data");
  });

  it("names structural problems before touching the broker", async () => {
    const { apply } = await setup();
    const result = await apply({ sounds: { files: { Bad: "x.ogg" }, types: { "Not-A-Type": 3 }, extra: 1 } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("sounds: unknown key extra");
    expect(result.stderr).toContain("sounds.files.Bad must be the path of a .wav or .mp3 file");
    expect(result.stderr).toContain("sounds.types.Not-A-Type is not a valid type ID");
  });
});
