import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { updateConfigFile } from "../src/config/config-file.js";

/** Issue 21, item 4 (the same class in Notify's own files): a symlinked config.json stays a link when written. */
let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "notify-config-link-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("a symlinked config.json", () => {
  it("is written through to the file it points at, which is 0600; the link stays", () => {
    const dataDir = join(root, "data");
    const dotfiles = join(root, "dotfiles");
    mkdirSync(dataDir, { mode: 0o700 });
    mkdirSync(dotfiles);
    const target = join(dotfiles, "notify-config.json");
    writeFileSync(target, '{"authToken":"t0","Custom":1}\n', { mode: 0o644 });
    symlinkSync(target, join(dataDir, "config.json"));
    updateConfigFile(dataDir, (contents) => {
      contents.RouterEnabled = true;
    });
    expect(lstatSync(join(dataDir, "config.json")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dataDir, "config.json"))).toBe(target);
    expect(JSON.parse(readFileSync(target, "utf8"))).toEqual({ authToken: "t0", Custom: 1, RouterEnabled: true });
    expect(statSync(target).mode & 0o777).toBe(0o600);
  });
});
