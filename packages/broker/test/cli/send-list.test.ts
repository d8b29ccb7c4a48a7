import type { Json } from "@notify/test-kit";
import { describe, expect, it } from "vitest";
import { sharedCliBroker } from "./cli-harness.js";

const { cli, notify } = sharedCliBroker();

async function fetchNotification(id: string): Promise<Json> {
  const { status, body } = await cli.api<Json>("GET", `/v1/notifications/${id}`);
  expect(status).toBe(200);
  return body;
}

describe("notify send", () => {
  it("prints only the new id on stdout", async () => {
    const result = await notify("send", "Build finished", "All green", "--agent", "claude", "--project", "web");
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(/^\S+\n$/);
    const stored = await fetchNotification(result.stdout.trim());
    expect(stored).toMatchObject({ title: "Build finished", message: "All green", agent: "claude", project: "web" });
  });

  it("prints the whole notification with --json, options winning over positionals", async () => {
    const result = await notify(
      "send",
      "positional title",
      "positional message",
      "--title",
      "Option title",
      "--message",
      "Option message",
      "--priority",
      "high",
      "--agent-instance",
      "tab-2",
      "--key",
      "build-42",
      "--cwd",
      "/tmp/project",
      "--pid",
      "4242",
      "--metadata",
      '{"branch":"main"}',
      "--json",
    );
    expect(result.code).toBe(0);
    const notification = JSON.parse(result.stdout);
    expect(notification).toMatchObject({
      title: "Option title",
      message: "Option message",
      priority: "high",
      agentInstance: "tab-2",
      key: "build-42",
      cwd: "/tmp/project",
      pid: 4242,
      metadata: { branch: "main" },
      status: "active",
    });
    expect(await fetchNotification(notification.id)).toMatchObject({ id: notification.id, title: "Option title" });
  });

  it("normalizes hyphens in --type to underscores", async () => {
    // docs/api.md, "Type IDs", rule 3: the CLI accepts hyphens in type IDs and normalizes them to underscores.
    const result = await notify("send", "Need input", "Pick one", "--type", "input-required", "--json");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).type).toBe("input_required");
  });

  it("exits 2 on a wrong token", async () => {
    // docs/desktop.md, "Local presentation rules", rule 9: send exits 2 on a 401.
    const result = await notify("send", "t", "m", "--token", "not-the-token");
    expect(result).toMatchObject({ code: 2, stdout: "", stderr: "notify: 401 unauthorized\n" });
  });

  it("exits 1 on a 400 and prints the server's message, naming the flag (issue 21, item 21)", async () => {
    // docs/desktop.md, "Local presentation rules", rule 9: 1 on any other failed response.
    const result = await notify("send", "t", "m", "--priority", "urgent");
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe("notify: --priority must be one of low, normal, high, critical\n");
    const missing = await notify("send", "only a title");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("notify: --message is required\n");
  });

  it("exits 1 on --metadata that is not JSON, without a request", async () => {
    const result = await notify("send", "t", "m", "--metadata", "{oops");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^notify: --metadata must be JSON/);
  });
});

describe("notify list", () => {
  it("prints an aligned table newest first, and the JSON array with --json, honouring filters", async () => {
    const first = (await notify("send", "Alpha task", "m", "--agent", "codex", "--project", "lister")).stdout.trim();
    const second = (
      await notify("send", "Beta task", "m", "--agent", "codex", "--project", "lister", "--type", "blocked")
    ).stdout.trim();
    const third = (await notify("send", "Gamma task", "m", "--agent", "other", "--project", "lister")).stdout.trim();
    expect((await notify("dismiss", third)).code).toBe(0);

    const table = await notify("list", "--project", "lister");
    expect(table.code).toBe(0);
    expect(table.stderr).toBe("");
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+PRIORITY\s+TYPE\s+AGENT\s+PROJECT\s+CREATED\s+TITLE$/);
    // docs/api.md, "Notify local API (v1)": listings return newest first.
    expect(lines.slice(1).map((line) => line.split(/\s+/)[0])).toEqual([third, second, first]);
    // Aligned: every column starts at the same offset as its header.
    const titleColumn = lines[0]?.indexOf("TITLE") ?? -1;
    expect(lines.slice(1).map((line) => line.slice(titleColumn))).toEqual(["Gamma task", "Beta task", "Alpha task"]);
    expect(lines[1]).toMatch(/ dismissed +normal +info +other +lister /);

    // Filters: --unresolved, --agent, --type (hyphen-normalized like send), --status, --limit.
    const unresolved = await notify("list", "--project", "lister", "--unresolved", "--agent", "codex", "--json");
    expect(unresolved.code).toBe(0);
    expect(JSON.parse(unresolved.stdout).map((n: Json) => n.id)).toEqual([second, first]);
    const byType = await notify("list", "--project", "lister", "--type", "blocked", "--json");
    expect(JSON.parse(byType.stdout).map((n: Json) => n.id)).toEqual([second]);
    const byStatus = await notify("list", "--project", "lister", "--status", "dismissed", "--json");
    expect(JSON.parse(byStatus.stdout).map((n: Json) => n.id)).toEqual([third]);
    const limited = await notify("list", "--project", "lister", "--limit", "1", "--json");
    expect(JSON.parse(limited.stdout).map((n: Json) => n.id)).toEqual([third]);
  });

  it("says so on stderr when nothing matches, and exits 1 on an invalid filter", async () => {
    const none = await notify("list", "--project", "no-such-project");
    expect(none).toMatchObject({ code: 0, stdout: "", stderr: "notify: no notifications\n" });
    const noneJson = await notify("list", "--project", "no-such-project", "--json");
    expect(JSON.parse(noneJson.stdout)).toEqual([]);
    const invalid = await notify("list", "--limit", "501");
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toBe("notify: --limit must be an integer 1-500\n");
  });
});

describe("notify dismiss and resolve", () => {
  it("print `<id> <status>` and change the status", async () => {
    const dismissed = (await notify("send", "to dismiss", "m")).stdout.trim();
    const resolved = (await notify("send", "to resolve", "m")).stdout.trim();
    expect(await notify("dismiss", dismissed)).toMatchObject({ code: 0, stdout: `${dismissed} dismissed\n` });
    expect(await notify("resolve", resolved)).toMatchObject({ code: 0, stdout: `${resolved} resolved\n` });
    expect((await fetchNotification(dismissed)).status).toBe("dismissed");
    expect((await fetchNotification(resolved)).status).toBe("resolved");
  });

  it("exit 1 with the server's message on failure", async () => {
    // docs/desktop.md, "Local presentation rules", rule 9: commands other than send exit 1 on failure; Errors: 404
    // `notification not found`.
    expect(await notify("dismiss", "ntf_missing")).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "notify: 404 notification not found\n",
    });
    // docs/api.md, "Notification status transitions (as implemented)": a dismissed notification cannot become resolved
    // (400).
    const id = (await notify("send", "dismiss then resolve", "m")).stdout.trim();
    await notify("dismiss", id);
    const result = await notify("resolve", id);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^notify: 400 /);
  });
});

describe("notify status", () => {
  it("prints url, version, pid, uptime and the active count; --json prints the health object", async () => {
    const result = await notify("status");
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain(`url     ${cli.broker.url}\n`);
    expect(result.stdout).toContain(`pid     ${process.pid}\n`);
    expect(result.stdout).toMatch(/^version \S+$/m);
    expect(result.stdout).toMatch(/^uptime {2}(\d+[dhm] )*\d+s$/m);
    expect(result.stdout).toMatch(/^active {2}\d+ notifications?$/m);
    expect(result.stdout).not.toContain(cli.token);

    const json = await notify("status", "--json");
    expect(json.code).toBe(0);
    // docs/api.md, "GET /v1/health": the HealthResponse fields.
    expect(JSON.parse(json.stdout)).toMatchObject({ status: "ok", apiVersion: "v1", pid: process.pid });
  });
});
