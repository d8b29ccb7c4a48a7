import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Issue 34, item 4: each enum and pattern once. A value list (`["low", "normal", ...] as const`, `z.enum([...])`,
 * `type X = "a" | "b"`) is declared in one place, the zod-free contract constants (src/enums.ts and the constants
 * modules) where the contracts share it, and everything else is built from it: a second literal list of the same
 * values anywhere in `packages/*\/src`, as an array, a `z.enum` or a union type, is a copy that can drift.
 */

const packages = resolve(import.meta.dirname, "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

const files = readdirSync(packages, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((entry) => {
    try {
      return sourceFiles(join(packages, entry.name, "src"));
    } catch {
      return [];
    }
  })
  .map((path) => ({ path: relative(packages, path), text: readFileSync(path, "utf8") }));

const STRING = String.raw`"([^"\\\n]*)"`;
/** A literal list: an array of string literals, or a union of string literal types. */
const LISTS = [
  new RegExp(String.raw`\[\s*${STRING}(?:\s*,\s*${STRING})+\s*,?\s*\]`, "g"),
  new RegExp(String.raw`${STRING}(?:\s*\|\s*${STRING})+`, "g"),
];
/** A declared enum: an `as const` array, a `z.enum` of literals, or a type alias that is a union of literals. */
const DECLARATIONS = [
  new RegExp(String.raw`=\s*(\[\s*${STRING}(?:\s*,\s*${STRING})+\s*,?\s*\])\s*as\s+const`, "g"),
  new RegExp(String.raw`z\.enum\(\s*(\[\s*${STRING}(?:\s*,\s*${STRING})+\s*,?\s*\])`, "g"),
  new RegExp(String.raw`\btype\s+\w+\s*=\s*(${STRING}(?:\s*\|\s*${STRING})+)\s*;`, "g"),
];

/** The values of a literal list as a key: sorted, without repeats. */
const keyOf = (list: string): string =>
  [...new Set([...list.matchAll(/"([^"\\\n]*)"/g)].map((value) => value[1]))].sort().join("|");
const lineOf = (text: string, index: number): number => text.slice(0, index).split("\n").length;

/** Where each value list is written, by its key: `file:line`. */
function literalLists(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of files) {
    for (const pattern of LISTS) {
      for (const match of file.text.matchAll(pattern)) {
        const key = keyOf(match[0]);
        const where = `${file.path}:${lineOf(file.text, match.index)}`;
        found.set(key, [...(found.get(key) ?? []), where]);
      }
    }
  }
  return found;
}

/** The keys of every declared enum. */
function declaredEnums(): Set<string> {
  const keys = new Set<string>();
  for (const file of files) {
    for (const pattern of DECLARATIONS)
      for (const match of file.text.matchAll(pattern)) keys.add(keyOf(match[1] ?? ""));
  }
  return keys;
}

describe("each enum once (issue 34, item 4)", () => {
  it("no declared value list is written out again in packages/*/src", () => {
    const lists = literalLists();
    const twice = [...declaredEnums()]
      .map((key) => ({ key, where: lists.get(key) ?? [] }))
      .filter(({ where }) => where.length > 1)
      .map(({ key, where }) => `${key}: ${where.join(", ")}`);
    expect(twice, "a value list written twice: import the contract's list instead").toEqual([]);
  });

  it("the shared lists the issue names are declared once, in the zod-free contract constants", () => {
    const declared = (name: string) =>
      files.filter((file) => new RegExp(String.raw`\bconst ${name}\s*=`).test(file.text)).map((file) => file.path);
    for (const name of ["PRIORITIES", "INTERACTION_KINDS", "NOTIFICATION_STATUSES", "OUTBOX_STATUSES"]) {
      const contracts = declared(name).filter((path) => path.startsWith("contracts/"));
      expect({ name, contracts }).toEqual({ name, contracts: ["contracts/src/enums.ts"] });
    }
  });

  it("each pattern of the contract constants is written once", () => {
    const enums = files.find((file) => file.path === join("contracts", "src", "enums.ts"));
    const patterns = [...(enums?.text ?? "").matchAll(/export const (\w+) = (\/.+\/[a-z]*);/g)];
    expect(patterns.map(([, name]) => name)).toEqual(
      expect.arrayContaining(["CHOICE_ID_PATTERN", "EXTENSION_KEY_PATTERN", "NOTIFICATION_TYPE_PATTERN"]),
    );
    for (const [, name, source] of patterns) {
      const copies = files.filter((file) => file.path !== enums?.path && file.text.includes(source as string));
      expect({ name, copies: copies.map((file) => file.path) }).toEqual({ name, copies: [] });
    }
  });

  it("TypeDefinition is declared once in the contracts", () => {
    const declarations = files
      .filter((file) => /^\s*(export\s+)?(interface|type) TypeDefinition\b/m.test(file.text))
      .map((file) => file.path);
    expect(declarations).toEqual([join("contracts", "src", "ui", "config.ts")]);
  });
});
