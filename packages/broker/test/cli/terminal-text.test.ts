import type { Json } from "@notify/test-kit";
import { describe, expect, it } from "vitest";
import { sharedCliBroker } from "./cli-harness.js";

/**
 * Issue 31, item 1: `notify pending`, `show` and `list` printed agent text raw (the prompt, the agent name an MCP
 * client picks for itself, the project), so an agent could clear or recolour the person's terminal (ESC), cover a
 * line with another (CR) or reorder what the person approves (U+202E). Human output shows each as a visible escape,
 * bidi controls as the web page's token; `--json` stays exact.
 * Issue 31, item 12: `notify pending` showed `option_1|option_2` for an AskUserQuestion, not the labels.
 */

/** What a terminal would act on: C0 but LF, DEL, C1, the bidi controls, U+2028/9. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const ACTIVE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const AGENT = "claude\u001b[2J\u001b]0;owned\u0007";
const PROJECT = "web\u202Egnp.exe";
const PROMPT = "Run rm -rf build?\r     Run ls?\u009b31m\nsecond line\twith a tab\n\u001b[31mred\u001b[0m \\n stays";
const LABEL = "Yes\u202E (safe)";

const { cli, notify } = sharedCliBroker();

async function openQuestion(body: Json): Promise<Json> {
  const { status, body: interaction } = await cli.api<Json>("POST", "/v1/interactions/request", body);
  expect(status).toBe(201);
  return interaction;
}

describe("agent text on the person's terminal", () => {
  it("pending: agent, project and prompt escaped on one line each; --json exact", async () => {
    const question = await openQuestion({
      kind: "single_choice",
      prompt: PROMPT,
      agent: AGENT,
      project: PROJECT,
      choices: [
        { id: "yes", label: LABEL },
        { id: "no", label: "No" },
      ],
    });
    const human = await notify("pending");
    expect(human.code).toBe(0);
    expect(human.stdout).not.toMatch(ACTIVE);
    const line = human.stdout.split("\n").find((entry) => entry.startsWith(question.id as string));
    expect(line).toContain("claude\\x1B[2J\\x1B]0;owned\\x07/web<U+202E>gnp.exe");
    expect(line).toContain("Run rm -rf build?\\r     Run ls?\\x9B31m");
    expect(line).toContain("yes (Yes<U+202E> (safe))|no");

    const json = await notify("pending", "--json");
    expect(json.stdout).not.toMatch(ACTIVE);
    const listed = (JSON.parse(json.stdout) as Json[]).find((entry) => entry.id === question.id);
    expect(listed).toMatchObject({ agent: AGENT, project: PROJECT, prompt: PROMPT });
  });

  it("show: header lines escaped, the prompt whole with its line feeds and tabs; --json exact", async () => {
    const question = await openQuestion({ kind: "text", prompt: PROMPT, agent: AGENT, project: PROJECT });
    const human = await notify("show", question.id as string);
    expect(human.code).toBe(0);
    expect(human.stdout.replaceAll("\t", " ")).not.toMatch(ACTIVE);
    expect(human.stdout).toContain("agent    claude\\x1B[2J\\x1B]0;owned\\x07\n");
    expect(human.stdout).toContain("project  web<U+202E>gnp.exe\n");
    expect(human.stdout).toContain(
      "\nRun rm -rf build?\\r     Run ls?\\x9B31m\nsecond line\twith a tab\n\\x1B[31mred\\x1B[0m \\n stays\n",
    );
    const json = await notify("show", question.id as string, "--json");
    expect(json.stdout).not.toMatch(ACTIVE);
    expect(JSON.parse(json.stdout)).toMatchObject({ agent: AGENT, project: PROJECT, prompt: PROMPT });
  });

  it("list and show of a notification: title, agent, project and message escaped; --json exact", async () => {
    const sent = await notify("send", "Done\u001b[2J\u202Eok", "body\u001b]0;x\u0007\nline 2", "--agent", AGENT);
    expect(sent.code).toBe(0);
    const id = sent.stdout.trim();
    const table = await notify("list");
    expect(table.stdout).not.toMatch(ACTIVE);
    const row = table.stdout.split("\n").find((line) => line.startsWith(id));
    expect(row).toContain("claude\\x1B[2J\\x1B]0;owned\\x07");
    expect(row).toContain("Done\\x1B[2J<U+202E>ok");
    const shown = await notify("show", id);
    expect(shown.stdout).not.toMatch(ACTIVE);
    expect(shown.stdout).toContain("\nbody\\x1B]0;x\\x07\nline 2\n");
    const json = await notify("list", "--json");
    expect(json.stdout).not.toMatch(ACTIVE);
    expect((JSON.parse(json.stdout) as Json[]).find((entry) => entry.id === id)).toMatchObject({
      title: "Done\u001b[2J\u202Eok",
      agent: AGENT,
    });
  });

  it("--json of plain text is byte for byte JSON.stringify's", async () => {
    const question = await openQuestion({ kind: "text", prompt: "Deploy ünïcödé 📱 to C:\\prod?", agent: "codex" });
    const json = await notify("show", question.id as string, "--json");
    const { nonce: _nonce, ...expected } = (await cli.api<Json>("GET", `/v1/interactions/${question.id}`)).body;
    expect(json.stdout).toBe(`${JSON.stringify(expected, null, 2)}\n`);
  });

  it("pending names each choice's label beside its id (AskUserQuestion's option_1, option_2)", async () => {
    const question = await openQuestion({
      kind: "single_choice",
      prompt: "Which database?",
      agent: "claude-code",
      choices: [
        { id: "option_1", label: "SQLite", detail: "one file" },
        { id: "option_2", label: "PostgreSQL" },
      ],
    });
    const permission = await openQuestion({ kind: "permission", prompt: "Run ls?", agent: "claude-code" });
    const human = await notify("pending");
    const lines = human.stdout.split("\n");
    expect(lines.find((line) => line.startsWith(question.id as string))).toContain(
      "option_1 (SQLite)|option_2 (PostgreSQL)  Which database?",
    );
    // A label that only repeats its id (a permission question's Allow, Deny) is not said twice.
    expect(lines.find((line) => line.startsWith(permission.id as string))).toContain("allow|deny  Run ls?");
  });
});
