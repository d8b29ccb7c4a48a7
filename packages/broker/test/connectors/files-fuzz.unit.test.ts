import {
  chmodSync,
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
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { install, uninstall } from "../../src/hooks/install/installer.js";
import { connectorService } from "./connector-fixture.js";

/**
 * Issue 21, "Must show": a property test over the hook installers and the connectors. Random owner files (a UTF-8
 * BOM or not, CRLF or LF, a final newline or not, JSON or TOML content), symlinked or not, mode 0600/0640/0644:
 * install then uninstall (and connect then disconnect) gives back the same bytes and the same mode, never replaces
 * a link with a file, and never widens a mode (connect makes a file readable by others 0600: it holds the router
 * key).
 */

interface Style {
  bom: boolean;
  newline: "\n" | "\r\n";
  trailing: boolean;
}

const style = fc.record({
  bom: fc.boolean(),
  newline: fc.constantFrom<"\n" | "\r\n">("\n", "\r\n"),
  trailing: fc.boolean(),
});
const mode = fc.constantFrom(0o600, 0o640, 0o644);
const word = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
/** A short string without control characters (a line break would split a TOML comment into a bare line). */
const text = fc
  .string({ maxLength: 12 })
  .map((value) =>
    [...value].map((char) => ((char.codePointAt(0) ?? 0) < 0x20 || char === "\u007f" ? "x" : char)).join(""),
  );

/** Lines of an owner's JSON settings (never Notify's own keys), in one of three layouts. */
const jsonLines = fc
  .tuple(
    fc.dictionary(word, fc.oneof(text, fc.integer(), fc.boolean(), fc.array(text, { maxLength: 3 })), {
      maxKeys: 5,
    }),
    fc.constantFrom(0, 2, 4),
  )
  .map(([document, indent]) => JSON.stringify(document, null, indent).split("\n"));

/** Lines of an owner's config.toml: root keys and comments, then maybe a table. */
const tomlLines = fc
  .tuple(
    fc.array(
      fc.oneof(
        word.map((key) => `${key}_k = "v"`),
        text.map((value) => `# ${value}`),
        fc.constant(""),
      ),
      {
        maxLength: 6,
      },
    ),
    fc.option(
      fc.array(
        word.map((key) => `${key}_t = 1`),
        { maxLength: 3 },
      ),
    ),
  )
  .map(([root, table]) => [...root, ...(table === null ? [] : ["[tui]", ...table])]);

const render = (lines: string[], { bom, newline, trailing }: Style): string =>
  (bom ? "\uFEFF" : "") + lines.join(newline) + (trailing ? newline : "");

interface Placed {
  path: string;
  real: string;
  before: Buffer;
  mode: number;
  link: boolean;
}

/** Writes the owner's file at `path`, or in `elsewhere` with `path` a link to it. */
function place(path: string, elsewhere: string, content: string, fileMode: number, link: boolean): Placed {
  const real = link ? elsewhere : path;
  writeFileSync(real, content);
  chmodSync(real, fileMode);
  if (link) symlinkSync(real, path);
  return { path, real, before: Buffer.from(content, "utf8"), mode: fileMode, link };
}

const modeOf = (path: string): number => statSync(path).mode & 0o777;

function expectKept(file: Placed, during: string): void {
  expect(lstatSync(file.path).isSymbolicLink(), `${during}: link kept`).toBe(file.link);
  if (file.link) expect(readlinkSync(file.path)).toBe(file.real);
}

describe("installers and connectors over random owner files (issue 21)", () => {
  it("install/uninstall and connect/disconnect restore bytes and mode, keep links, never widen a mode", () => {
    fc.assert(
      fc.property(
        fc.record({
          claude: fc.record({ lines: jsonLines, style, mode, link: fc.boolean() }),
          hooks: fc.record({ lines: jsonLines, style, mode, link: fc.boolean() }),
          toml: fc.record({ lines: tomlLines, style, mode, link: fc.boolean() }),
        }),
        ({ claude, hooks, toml }) => {
          const root = mkdtempSync(join(tmpdir(), "notify-files-fuzz-"));
          try {
            const home = join(root, "home");
            const dotfiles = join(root, "dotfiles");
            mkdirSync(join(home, ".claude"), { recursive: true });
            mkdirSync(join(home, ".codex"), { recursive: true });
            mkdirSync(dotfiles);
            const settings = place(
              join(home, ".claude", "settings.json"),
              join(dotfiles, "settings.json"),
              render(claude.lines, claude.style),
              claude.mode,
              claude.link,
            );
            const hooksJson = place(
              join(home, ".codex", "hooks.json"),
              join(dotfiles, "hooks.json"),
              render(hooks.lines, hooks.style),
              hooks.mode,
              hooks.link,
            );
            const config = place(
              join(home, ".codex", "config.toml"),
              join(dotfiles, "config.toml"),
              render(toml.lines, toml.style),
              toml.mode,
              toml.link,
            );

            const context = { dataDir: join(root, "data"), program: ["notify"], where: { home, cwd: root, env: {} } };
            install("claude-code", "user", context);
            install("codex", "user", context);
            for (const file of [settings, hooksJson]) {
              expectKept(file, "install");
              expect(modeOf(file.path)).toBe(file.mode);
              expect(readFileSync(file.path, "utf8").startsWith("\uFEFF")).toBe(
                file.before.toString().startsWith("\uFEFF"),
              );
            }
            uninstall("claude-code", "user", context);
            uninstall("codex", "user", context);
            for (const file of [settings, hooksJson]) {
              expectKept(file, "uninstall");
              expect(readFileSync(file.path).equals(file.before)).toBe(true);
              expect(modeOf(file.path)).toBe(file.mode);
            }

            const service = connectorService(root, home, "nrk_fuzz");
            service.connect("codex", {});
            service.connect("claude-code", {});
            for (const file of [settings, config]) {
              expectKept(file, "connect");
              // Holding the router key: never wider than before, and readable by the owner only.
              expect(modeOf(file.path)).toBe(0o600);
              expect(readFileSync(file.path, "utf8").startsWith("\uFEFF")).toBe(
                file.before.toString().startsWith("\uFEFF"),
              );
            }
            service.disconnect("codex");
            service.disconnect("claude-code");
            for (const file of [settings, config]) {
              expectKept(file, "disconnect");
              expect(readFileSync(file.path).equals(file.before)).toBe(true);
              expect(modeOf(file.path)).toBe(file.mode);
            }
          } finally {
            rmSync(root, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 30 },
    );
  }, 120_000);
});
