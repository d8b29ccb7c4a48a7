/**
 * The repository explains itself (issue 34, item 6): every reference in packages/X/src, docs/ and README.md points
 * to a document inside the repository. A rule is cited as `(docs/api.md, "Limits")`, the doc's path and the exact
 * text of one of its headings; the contract documents the code was first written against ("spec 1", "spec 2",
 * "spec 3", DESIGN.md) live outside it and may not be cited.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SOURCE_FILE = /\.(ts|tsx|js|mjs|cjs|css|html)$/;
const SKIPPED_DIRS = new Set(["node_modules", "dist", "coverage"]);

/** A reference to a document outside the repository. */
const OUTSIDE_REFERENCE = /\bspecs? ?[1-3]\b|DESIGN\.md/gi;
/** `docs/<file>.md, "<heading>"`. */
const CITATION = /docs\/([A-Za-z0-9_-]+\.md),\s*"([^"\n]+)"/g;
/** A citation wrapped after its comma: the next line's comment marker is not part of it. */
const WRAPPED_CITATION = /,[ \t]*\r?\n[ \t]*(?:\*|\/\/)?[ \t]*"/g;

/** The headings of one Markdown text, as written after the `#`s (fenced code skipped). */
export function headingsOf(markdown: string): Set<string> {
  const headings = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*$/.exec(line);
    if (heading?.[1]) headings.add(heading[1]);
  }
  return headings;
}

/** Every problem of one file's text: outside references, and citations of a missing doc or heading. */
export function problemsIn(name: string, text: string, docs: ReadonlyMap<string, Set<string>>): string[] {
  const problems: string[] = [];
  const lineOf = (index: number) => text.slice(0, index).split("\n").length;
  for (const match of text.matchAll(OUTSIDE_REFERENCE)) {
    problems.push(`${name}:${lineOf(match.index)}: "${match[0]}" names a document outside the repository`);
  }
  // Same length, so an index into `joined` is one into `text`.
  const joined = text.replace(WRAPPED_CITATION, (wrap) => `,${" ".repeat(wrap.length - 2)}"`);
  for (const match of joined.matchAll(CITATION)) {
    const [citation, file = "", heading = ""] = match;
    const headings = docs.get(file);
    if (headings === undefined) {
      problems.push(`${name}:${lineOf(match.index)}: ${citation}: there is no docs/${file}`);
    } else if (!headings.has(heading)) {
      problems.push(`${name}:${lineOf(match.index)}: ${citation}: docs/${file} has no heading "${heading}"`);
    }
  }
  return problems;
}

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED_DIRS.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return SOURCE_FILE.test(entry.name) ? [path] : [];
  });
}

function docsOfRepository(): Map<string, Set<string>> {
  const docsDir = join(ROOT, "docs");
  return new Map(
    readdirSync(docsDir)
      .filter((name) => name.endsWith(".md"))
      .map((name) => [name, headingsOf(readFileSync(join(docsDir, name), "utf8"))]),
  );
}

describe("references in the code and docs point inside the repository (issue 34, item 6)", () => {
  const docs = docsOfRepository();

  it("finds a planted outside reference, a missing doc and a missing heading", () => {
    const planted = [
      "// 1. the spec 2 check order; Spec1 and specs 3 too",
      "/** See DESIGN.md, Relay. */",
      '// (docs/api.md, "Limits") is fine, (docs/nowhere.md, "Limits") is not,',
      ' * nor (docs/api.md, "No such heading"), nor one wrapped (docs/api.md,',
      ' * "Also not a heading").',
    ].join("\n");
    expect(problemsIn("planted.ts", planted, docs)).toEqual([
      'planted.ts:1: "spec 2" names a document outside the repository',
      'planted.ts:1: "Spec1" names a document outside the repository',
      'planted.ts:1: "specs 3" names a document outside the repository',
      'planted.ts:2: "DESIGN.md" names a document outside the repository',
      'planted.ts:3: docs/nowhere.md, "Limits": there is no docs/nowhere.md',
      'planted.ts:4: docs/api.md, "No such heading": docs/api.md has no heading "No such heading"',
      expect.stringMatching(/^planted\.ts:4: docs\/api\.md, +"Also not a heading": docs\/api\.md has no heading/),
    ]);
  });

  it("reads headings as written, backticks included, and skips fenced code", () => {
    const headings = headingsOf("# Title\n\n## Web UI API: `/ui/api`\n\n```sh\n# a comment\n```\n### Limits  \n");
    expect([...headings]).toEqual(["Title", "Web UI API: `/ui/api`", "Limits"]);
  });

  it("packages/*/src, docs/ and README.md cite only docs that exist, by headings they have", () => {
    const packagesDir = join(ROOT, "packages");
    const files = [
      ...readdirSync(packagesDir).flatMap((pkg) => sourceFiles(join(packagesDir, pkg, "src"))),
      ...[...docs.keys()].map((name) => join(ROOT, "docs", name)),
      join(ROOT, "README.md"),
    ];
    expect(files.length).toBeGreaterThan(100);
    const problems = files.flatMap((file) => problemsIn(relative(ROOT, file), readFileSync(file, "utf8"), docs));
    expect(problems).toEqual([]);
  });
});
