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

/**
 * Copies that sit in files other work of issue 34 owns right now (the CLI, hooks, MCP, the broker's domain types,
 * the router package, the test kit): how many extra copies of each list are left, and where. The lead moves them to
 * the contract's list and lowers these counts to nothing; a count higher than the copies found fails, so the list
 * shrinks with them.
 */
const LEFTOVERS: Record<string, { extra: number; where: string }> = {
  "critical|high|low|normal": {
    extra: 5,
    where: "broker notifications/types.ts, mcp/tools.ts (2), contracts producer.ts, test-kit arc-arbitraries.ts",
  },
  "permission|single_choice|text": {
    extra: 6,
    where: "broker cli/program.ts, interactions/types.ts, mcp/tools.ts (2), outbox/types.ts, contracts producer.ts",
  },
  "claude-code|codex": {
    extra: 8,
    where:
      "broker cli/commands/doctor.ts, connectors/accounts.ts (2), hooks/agents.ts, hooks/install/installer.ts, mcp/install.ts, router subscriptions/agent-accounts.ts (2)",
  },
  "DeadLetter|Delivered|Pending|Retry": { extra: 2, where: "broker cli/doctor/outbound-check.ts, outbox/types.ts" },
  "active|dismissed|resolved": { extra: 2, where: "broker notifications/types.ts, contracts producer.ts" },
  "answered|cancelled|expired|pending|superseded": {
    extra: 2,
    where: "broker interactions/types.ts, contracts producer.ts",
  },
  "toast|ui": { extra: 3, where: "broker interactions/types.ts, routing/timeline.ts, contracts ui/timeline-words.ts" },
  "high|low|max|medium|xhigh": {
    extra: 3,
    where: "broker connectors/connector-service.ts, router effort/families.ts (2)",
  },
  "flat_plan|local|per_token|subscription": {
    extra: 3,
    where: "router presets/catalogue.ts, smart-switching.ts (2)",
  },
  "host_cache|provider": { extra: 2, where: "broker router/model-fetch.ts, router presets/catalogue.ts" },
  "alias|combo": { extra: 1, where: "router config/records.ts" },
  "closed|shown": { extra: 1, where: "broker store/toast-store.ts" },
  "mp3|wav": { extra: 1, where: "broker presentation/sounds/sound-library.ts" },
  "interaction|notification": { extra: 2, where: "broker outbox/types.ts, presentation/presenter.ts" },
  "fri|mon|sat|sun|thu|tue|wed": { extra: 1, where: "broker routing/quiet-hours.ts" },
  "delay|presence|quiet_hours": { extra: 1, where: "broker routing/policy.ts" },
  "blocked|completion|failure|information|permission|question": { extra: 1, where: "test-kit arc-arbitraries.ts" },
  "answered|cancelled|expired|not_needed|superseded": { extra: 1, where: "test-kit arc-arbitraries.ts" },
  "request.created|request.resolved|request.updated|response.submitted": {
    extra: 1,
    where: "test-kit arc-arbitraries.ts",
  },
  "accepted|duplicate": { extra: 1, where: "relay domain/answers.ts" },
  "fail|ok|warn": { extra: 1, where: "broker cli/doctor/service-check.ts" },
  "allow|deny": { extra: 2, where: "broker hooks/decision-output.ts" },
  "launchd|systemd": { extra: 1, where: "broker service/service-files.ts" },
  "project|user": {
    extra: 7,
    where: "broker cli/program.ts (4), hooks/install/installer.ts, targets.ts, mcp/install.ts",
  },
  "chat|messages|responses": { extra: 2, where: "router ir.ts, test-kit model-mock.ts" },
  "delay_seconds|quiet_hours|when": {
    extra: 3,
    where: "broker cli/apply/outbound-document.ts, outbox/outbound-config.ts, store/outbound-store.ts (2)",
  },
  "family|model": {
    extra: 3,
    where: "broker cli/apply/router-effort.ts, cli/apply/router-rehearsal.ts (2), router config/effort-config.ts",
  },
};

describe("each enum once (issue 34, item 4)", () => {
  it("no declared value list is written out again in packages/*/src", () => {
    const lists = literalLists();
    const copies: Record<string, { extra: number; where: string[] }> = {};
    for (const key of declaredEnums()) {
      const where = lists.get(key) ?? [];
      if (where.length > 1) copies[key] = { extra: where.length - 1, where };
    }
    const beyond = Object.entries(copies)
      .filter(([key, copy]) => copy.extra > (LEFTOVERS[key]?.extra ?? 0))
      .map(([key, copy]) => `${key}: ${copy.where.join(", ")}`);
    expect(beyond, "a value list written twice: import the contract's list instead").toEqual([]);
    const stale = Object.entries(LEFTOVERS)
      .filter(([key, leftover]) => (copies[key]?.extra ?? 0) < leftover.extra)
      .map(([key, leftover]) => `${key}: ${copies[key]?.extra ?? 0} left, not ${leftover.extra}`);
    expect(stale, "copies moved to the contract: lower LEFTOVERS").toEqual([]);
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
    expect(patterns.map(([, name]) => name)).toContain("CHOICE_ID_PATTERN");
    // Today's leftovers: broker interactions/validate.ts (CHOICE_ID_PATTERN and SOURCE_PATTERN, one file), mcp/tools.ts
    // and test-kit arc-arbitraries.ts keep their own copy (the lead moves them).
    const leftovers: Record<string, number> = { CHOICE_ID_PATTERN: 3 };
    for (const [, name, source] of patterns) {
      const copies = files.filter((file) => file.path !== enums?.path && file.text.includes(source as string));
      expect({ name, copies: copies.length }).toEqual({ name, copies: leftovers[name as string] ?? 0 });
    }
  });

  it("TypeDefinition is declared once in the contracts", () => {
    const declarations = files
      .filter((file) => /^\s*(export\s+)?(interface|type) TypeDefinition\b/m.test(file.text))
      .map((file) => file.path);
    // Today's leftover: broker notifications/type-ids.ts keeps its own (the lead makes it the contract's).
    expect(declarations.sort()).toEqual([
      join("broker", "src", "notifications", "type-ids.ts"),
      join("contracts", "src", "ui", "config.ts"),
    ]);
  });
});
