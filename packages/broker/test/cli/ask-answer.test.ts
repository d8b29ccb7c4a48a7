import type { Json } from "@notify/test-kit";
import { describe, expect, it } from "vitest";
import { type CliProcess, sharedCliBroker, spawnCli } from "./cli-harness.js";

const { cli, notify } = sharedCliBroker();

/** Starts `notify ask` and returns it with the interaction id it announced on stderr. */
async function startAsk(...args: string[]): Promise<{ ask: CliProcess; id: string }> {
  const ask = spawnCli(["ask", ...args, ...cli.target]);
  const match = await ask.stderrMatching(/^notify: waiting for an answer to interaction (\S+) \(/m);
  return { ask, id: match[1] ?? "" };
}

async function nonceOf(id: string): Promise<string> {
  const { body } = await cli.api<Json>("GET", `/v1/interactions/${id}`);
  return body.nonce;
}

describe("ask and answer end to end", () => {
  it("single_choice: answer from another process, ask prints the choice id and exits 0", async () => {
    const { ask, id } = await startAsk(
      "Deploy to production?",
      "--kind",
      "single_choice",
      "--choice",
      "ship=Ship it:deploys main now",
      "--choice",
      "wait=Wait",
      "--agent",
      "claude",
      "--project",
      "web",
    );
    const { body: pending } = await cli.api<Json>("GET", `/v1/interactions/${id}`);
    expect(pending).toMatchObject({
      status: "pending",
      kind: "single_choice",
      agent: "claude",
      project: "web",
      choices: [
        { id: "ship", label: "Ship it", detail: "deploys main now" },
        { id: "wait", label: "Wait" },
      ],
    });

    const answer = await notify("answer", id, "--choice", "ship");
    expect(answer).toMatchObject({ code: 0, stdout: "" });
    expect(answer.stderr).toBe(`notify: answered interaction ${id} with choice ship\n`);

    const result = await ask.done;
    expect(result).toMatchObject({ code: 0, stdout: "ship\n" });
    // docs/api.md, "Interaction object": the nonce is a single-use secret; the CLI never prints it.
    expect(result.stdout + result.stderr + answer.stdout + answer.stderr).not.toContain(pending.nonce);
    expect(result.stderr).not.toContain(cli.token);
    const { body: answered } = await cli.api<Json>("GET", `/v1/interactions/${id}`);
    expect(answered.response).toMatchObject({ choice_id: "ship", source: "cli" });
  });

  it("text with --json on both sides: the final interaction without its nonce", async () => {
    const { ask, id } = await startAsk("Branch name?", "--kind", "text", "--text-max-length", "40", "--json");
    const nonce = await nonceOf(id);
    const answer = await notify("answer", id, "--text", "feature/cli client", "--json");
    expect(answer.code).toBe(0);
    const answered = JSON.parse(answer.stdout);
    expect(answered).toMatchObject({ id, status: "answered", response: { text: "feature/cli client" } });
    expect(answered).not.toHaveProperty("nonce");

    const result = await ask.done;
    expect(result.code).toBe(0);
    const final = JSON.parse(result.stdout);
    expect(final).toMatchObject({
      id,
      status: "answered",
      text_max_length: 40,
      response: { text: "feature/cli client" },
    });
    expect(final).not.toHaveProperty("nonce");
    expect(result.stdout + answer.stdout).not.toContain(nonce);
  });

  it("text without --json prints the text itself", async () => {
    const { ask, id } = await startAsk("Commit message?", "--kind", "text");
    expect((await notify("answer", id, "--text", "fix: handle empty lists")).code).toBe(0);
    expect(await ask.done).toMatchObject({ code: 0, stdout: "fix: handle empty lists\n" });
  });
});

describe("ask ending without an answer", () => {
  it("exits 5 when the interaction is cancelled while it waits", async () => {
    // docs/api.md, "Interaction status (as implemented)": cancel wakes waiters; issue 12: ask's exit codes tell the
    // endings apart (docs/cli.md).
    const { ask, id } = await startAsk("Run the migration?");
    const cancelled = await cli.api<Json>("POST", `/v1/interactions/${id}/cancel`);
    expect(cancelled.body.status).toBe("cancelled");
    const result = await ask.done;
    expect(result.code).toBe(5);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(`notify: interaction ${id} was cancelled\n`);
  });

  it("exits 6 when a changed request with the same key supersedes it", async () => {
    // docs/api.md, "Keyed reuse and supersede": a request with the same key and a changed request supersedes the
    // pending one.
    const { ask, id } = await startAsk("Use tabs?", "--key", "style-question");
    const { status } = await cli.api<Json>("POST", "/v1/interactions/request", {
      key: "style-question",
      prompt: "Use spaces?",
    });
    expect(status).toBe(201);
    const result = await ask.done;
    expect(result.code).toBe(6);
    expect(result.stderr).toContain(`notify: interaction ${id} was superseded`);
  });

  it("SIGINT cancels the interaction and exits 130", async () => {
    const { ask, id } = await startAsk("Delete the branch?");
    ask.child.kill("SIGINT");
    const result = await ask.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain(`notify: interrupted; cancelled interaction ${id}\n`);
    const { body } = await cli.api<Json>("GET", `/v1/interactions/${id}`);
    expect(body.status).toBe("cancelled");
  });

  it("exits 1 on a request the broker rejects", async () => {
    const result = await notify("ask", "Pick", "--kind", "single_choice", "--choice", "only=One");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("notify: --choice must have 2-12 entries\n");
    const malformed = await notify("ask", "Pick", "--choice", "no-equals-sign");
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toBe("notify: --choice no-equals-sign: expected id=label[:detail]\n");
  });
});

describe("notify answer failures", () => {
  it("exits 1 on an unknown choice, listing the valid ones (issue 21, item 21)", async () => {
    const { body: created } = await cli.api<Json>("POST", "/v1/interactions/request", { prompt: "Allow rm -rf?" });
    const result = await notify("answer", created.id, "--choice", "maybe");
    expect(result).toMatchObject({
      code: 1,
      stdout: "",
      stderr: `notify: unknown choice maybe for interaction ${created.id}: choose one of allow (Allow), deny (Deny)\n`,
    });
    const text = await notify("answer", created.id, "--text", "yes");
    expect(text).toMatchObject({
      code: 1,
      stderr: `notify: interaction ${created.id} is a permission question: answer with --choice allow, deny\n`,
    });
    const { body } = await cli.api<Json>("GET", `/v1/interactions/${created.id}`);
    expect(body.status).toBe("pending");
    const { body: question } = await cli.api<Json>("POST", "/v1/interactions/request", {
      prompt: "Why?",
      kind: "text",
    });
    expect(await notify("answer", question.id, "--choice", "allow")).toMatchObject({
      code: 1,
      stderr: `notify: interaction ${question.id} is a text question: answer with --text <text>\n`,
    });
  });

  it("names the flag, not the API field, when the broker refuses a value (issue 21, item 21)", async () => {
    expect(await notify("ask", "Deploy?", "--ttl", "5")).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "notify: --ttl must be 30-3600\n",
    });
    expect(await notify("ask", "Why?", "--kind", "text", "--text-max-length", "9000")).toMatchObject({
      code: 1,
      stderr: "notify: --text-max-length must be 1-2000\n",
    });
    const badId = await notify("ask", "Pick", "--kind", "single_choice", "--choice", "a=A", "--choice", "b c=B");
    expect(badId).toMatchObject({
      code: 1,
      stderr: "notify: the id of --choice #2 must match ^[A-Za-z0-9_-]{1,64}$\n",
    });
    expect(await notify("ask", "Why?", "--kind", "text", "--choice", "a=A")).toMatchObject({
      code: 1,
      stderr: "notify: --choice is not allowed with --kind text\n",
    });
    expect(await notify("send", "Title", "Body", "--priority", "urgent")).toMatchObject({
      code: 1,
      stderr: "notify: --priority must be one of low, normal, high, critical\n",
    });
    expect(await notify("list", "--status", "open")).toMatchObject({
      code: 1,
      stderr: "notify: --status must be one of active, dismissed, resolved\n",
    });
    expect(await notify("pending", "--limit", "0")).toMatchObject({
      code: 1,
      stderr: "notify: --limit must be an integer 1-500\n",
    });
  });

  it("exits 1 on an answered interaction (409) and on an unknown id (404)", async () => {
    const { body: created } = await cli.api<Json>("POST", "/v1/interactions/request", { prompt: "Allow push?" });
    expect((await notify("answer", created.id, "--choice", "allow")).code).toBe(0);
    const second = await notify("answer", created.id, "--choice", "deny");
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/^notify: 409 /);
    expect(await notify("answer", "int_missing", "--choice", "allow")).toMatchObject({
      code: 1,
      stderr: "notify: 404 interaction not found\n",
    });
  });

  it("needs exactly one of --choice and --text", async () => {
    const neither = await notify("answer", "int_any");
    expect(neither).toMatchObject({
      code: 1,
      stderr: "notify: pass exactly one of --choice <choiceId> or --text <text>\n",
    });
    const both = await notify("answer", "int_any", "--choice", "a", "--text", "b");
    expect(both.code).toBe(1);
  });
});
