import { dirname } from "node:path";
import { type BrokerClient, type ClientOptions, createClient } from "../../client/client.js";
import { readApplyFile } from "../apply/read-file.js";
import { type Change, type ChangeAction, isObject, type ParsedSection, type Step } from "../apply/section.js";
import { SECTIONS } from "../apply/sections.js";
import { ExitError } from "../exit-error.js";

export interface ApplyOptions extends ClientOptions {
  file: string;
  prune?: boolean | undefined;
  dryRun?: boolean | undefined;
  json?: boolean | undefined;
}

interface SummaryChange extends Change {
  /** True once the broker has accepted it; false in a dry run, for unchanged entries and after a failure. */
  applied: boolean;
}

/** The --json object on stdout (docs/apply.md). */
interface Summary {
  ok: boolean;
  dryRun: boolean;
  file: string;
  counts: Record<ChangeAction, number>;
  changes: SummaryChange[];
  error?: string;
}

const PAST: Record<ChangeAction, string> = {
  create: "created",
  update: "updated",
  delete: "deleted",
  unchanged: "unchanged",
};

/**
 * `notify apply FILE`: upserts declarative configuration into the running broker (docs/apply.md). The whole file
 * is checked, and the broker's state read and planned against, before the first change; a line per change goes
 * to stderr, `--json` puts a summary on stdout. Secret values from the file are sent to the broker, which seals
 * them, and are cut out of everything printed, errors included.
 */
export async function apply(options: ApplyOptions): Promise<void> {
  const summary: Summary = {
    ok: false,
    dryRun: options.dryRun === true,
    file: options.file,
    counts: { create: 0, update: 0, delete: 0, unchanged: 0 },
    changes: [],
  };
  let redact: (text: string) => string = (text) => text;
  try {
    const raw = readApplyFile(options.file);
    if (!isObject(raw)) {
      throw new ExitError(1, `${options.file} must hold an object with ${SECTIONS.map(({ key }) => key).join(", ")}`);
    }
    redact = redactor(
      SECTIONS.flatMap((section) => (raw[section.key] === undefined ? [] : section.secrets(raw[section.key]))),
    );
    const sections = parseSections(raw, options.file);
    const client = createClient(options);
    const steps = await planSteps(sections, client, options);
    summary.changes = steps.flatMap((step) => step.changes.map((change) => ({ ...change, applied: false })));
    for (const change of summary.changes) summary.counts[change.action]++;
    if (summary.dryRun) {
      for (const change of summary.changes) say(redact(line(change, true)));
      say(redact(`notify: dry run of ${options.file}: ${countsText(summary.counts, true)}; nothing was changed`));
    } else {
      await runSteps(steps, summary, client, redact);
      say(redact(`notify: applied ${options.file}: ${countsText(summary.counts, false)}`));
    }
    summary.ok = true;
  } catch (error) {
    const exitCode = error instanceof ExitError ? error.exitCode : 1;
    summary.error = redact((error as Error).message);
    if (options.json) process.stdout.write(redact(`${JSON.stringify(summary, null, 2)}\n`));
    throw new ExitError(exitCode, summary.error);
  }
  if (options.json) process.stdout.write(redact(`${JSON.stringify(summary, null, 2)}\n`));
}

/** Phase 1: structure only, every section, every problem at once. */
function parseSections(raw: Record<string, unknown>, file: string): ParsedSection[] {
  const problems: string[] = [];
  const known = SECTIONS.map(({ key }) => key);
  const unknown = Object.keys(raw).filter((key) => !known.includes(key));
  if (unknown.length > 0) {
    problems.push(
      `unknown top-level key${unknown.length === 1 ? "" : "s"} ${unknown.join(", ")} (expected ${known.join(", ")})`,
    );
  }
  const parsed: ParsedSection[] = [];
  for (const section of SECTIONS) {
    if (raw[section.key] === undefined) continue;
    const result = section.parse(raw[section.key], problems);
    if (result) parsed.push(result);
  }
  if (problems.length > 0) throw invalidFile(file, "is not valid", problems);
  return parsed;
}

/** Phase 2: reads the broker and plans every section; still nothing is written. */
async function planSteps(sections: ParsedSection[], client: BrokerClient, options: ApplyOptions): Promise<Step[]> {
  const problems: string[] = [];
  const steps: Step[] = [];
  for (const section of sections)
    steps.push(
      ...(await section.plan({ client, prune: options.prune === true, baseDir: dirname(options.file) }, problems)),
    );
  if (problems.length > 0) throw invalidFile(options.file, "cannot be applied", problems);
  return steps;
}

/** Phase 3: the steps in order. A failure stops the run; what was applied before it stays (re-running converges). */
async function runSteps(
  steps: Step[],
  summary: Summary,
  client: BrokerClient,
  redact: (text: string) => string,
): Promise<void> {
  let index = 0;
  for (const step of steps) {
    const changes = summary.changes.slice(index, index + step.changes.length);
    index += step.changes.length;
    if (step.run) {
      try {
        await step.run(client);
      } catch (error) {
        const [first] = step.changes;
        const applied = summary.changes.filter((change) => change.applied).length;
        const what = first ? `${first.action} ${first.kind} ${first.name}` : "change";
        throw new ExitError(
          1,
          `${what} failed: ${(error as Error).message} (${applied} change${applied === 1 ? "" : "s"} applied before it; ` +
            "fix the file and run apply again)",
        );
      }
    }
    for (const change of changes) {
      if (change.action !== "unchanged") change.applied = true;
      say(redact(line(change, false)));
    }
  }
}

function line(change: Change, dryRun: boolean): string {
  const verb = change.action === "unchanged" ? "unchanged" : dryRun ? `would ${change.action}` : PAST[change.action];
  const fields = change.fields && change.fields.length > 0 ? `: ${change.fields.join(", ")}` : "";
  const note = change.note ? ` (${change.note})` : "";
  return `${verb} ${change.kind} ${change.name}${fields}${note}`;
}

function countsText(counts: Record<ChangeAction, number>, dryRun: boolean): string {
  const actions = ["create", "update", "delete"] as const;
  return [
    ...actions.map((action) => `${counts[action]} ${dryRun ? `to ${action}` : PAST[action]}`),
    `${counts.unchanged} unchanged`,
  ].join(", ");
}

function invalidFile(file: string, what: string, problems: string[]): ExitError {
  return new ExitError(
    1,
    `${file} ${what} (nothing was changed):\n${problems.map((problem) => `  - ${problem}`).join("\n")}`,
  );
}

function say(text: string): void {
  process.stderr.write(`${text}\n`);
}

/**
 * Cuts every secret value out of a text: as written, and as JSON escapes it (for the --json summary). Longest
 * first, so a secret that contains another is cut whole.
 */
export function redactor(secrets: string[]): (text: string) => string {
  const needles = [...new Set(secrets.flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)]))]
    .filter((needle) => needle.length > 0)
    .sort((a, b) => b.length - a.length);
  if (needles.length === 0) return (text) => text;
  return (text) => needles.reduce((result, needle) => result.replaceAll(needle, "[secret]"), text);
}
