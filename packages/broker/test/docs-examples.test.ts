/**
 * The README's quick tour and the docs' pasteable /v1/events examples, run as written against a broker on a fresh
 * data dir (issue 10: docs must stay true). Only the port is changed (the docs use the default 47821), and the
 * placeholders a reader fills in by hand (`int_...`, `<id>`) get the ids the earlier commands printed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startModelMock } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningBroker, startBroker } from "../src/broker.js";
import type { Json } from "./helpers.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

let broker: RunningBroker;
let dataDir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "notify-docs-"));
  broker = await startBroker({ dataDir, port: 0, env: {} });
  env = { ...process.env, NOTIFY_DATA_DIR: dataDir, NOTIFY_PORT: String(broker.port), NO_COLOR: "1" };
  delete env.NOTIFY_TOKEN;
});

afterAll(async () => {
  await broker?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The first ```sh block after `heading` in `file`, as commands: continuations joined, comments dropped. */
function shellBlock(file: string, heading: string | RegExp): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const start = typeof heading === "string" ? text.indexOf(heading) : text.search(heading);
  expect(start, `${file}: ${heading}`).toBeGreaterThanOrEqual(0);
  const open = text.indexOf("```sh\n", start);
  const body = text.slice(open + 6, text.indexOf("\n```", open + 6));
  const commands: string[] = [];
  let current = "";
  let quoted = false;
  for (const line of body.split("\n")) {
    if (!quoted && current === "" && (line.trim() === "" || line.trim().startsWith("#"))) continue;
    current += current === "" ? line : `\n${line}`;
    // A single-quoted JSON body may span lines; a trailing backslash continues the command.
    quoted = (current.match(/'/g)?.length ?? 0) % 2 === 1;
    if (!quoted && !line.endsWith("\\")) {
      commands.push(current.replace(/\s+#[^'"\n]*$/, ""));
      current = "";
    }
  }
  return commands.map((command) => command.replaceAll("127.0.0.1:47821", `127.0.0.1:${broker.port}`));
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function bash(script: string, extraEnv: Record<string, string> = {}): { child: ChildProcess; done: Promise<Run> } {
  const child = spawn("bash", ["-euo", "pipefail", "-c", script], {
    cwd: ROOT,
    env: { ...env, ...extraEnv },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<Run>((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
  return { child, done };
}

/** Resolves once `text()` matches, or rejects after `ms`. */
async function until(text: () => string, pattern: RegExp, ms = 20_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const match = pattern.exec(text());
    if (match) return match;
    if (Date.now() > deadline) throw new Error(`no ${pattern} in: ${text()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("README quick tour, as written (issue 10)", () => {
  it("every command works and says what the README says", async () => {
    const commands = shellBlock("README.md", "## Quick tour");
    // The tour's steps, in order: a change to the README that drops one fails here.
    const expected = [
      "TOKEN=$(npx notify token)",
      "curl -s -X POST",
      "npx notify send",
      "npx notify list",
      "npx notify ask",
      "npx notify answer",
      "curl -s -X POST",
      'curl -s "http',
      "npx notify status",
    ];
    expect(commands.map((command) => expected.find((start) => command.startsWith(start)) ?? command)).toEqual(expected);
    let token = "";
    let askId = "";
    let interactionId = "";
    let ask: { child: ChildProcess; done: Promise<Run> } | undefined;
    for (const command of commands) {
      if (command.startsWith("TOKEN=")) {
        const run = await bash(`${command}; printf %s "$TOKEN"`).done;
        expect(run.code, run.stderr).toBe(0);
        token = run.stdout;
        expect(token).toBe(broker.settings.authToken);
        continue;
      }
      if (command.includes("notify ask")) {
        let stderr = "";
        ask = bash(command, { TOKEN: token });
        ask.child.stderr?.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        askId = (await until(() => stderr, /int_[0-9a-f]{24}/))[0];
        continue;
      }
      if (command.includes("notify answer")) {
        const run = await bash(command.replace(/int_[0-9a-f]{24}/, askId), { TOKEN: token }).done;
        expect(run.code, run.stderr).toBe(0);
        const asked = await (ask as { done: Promise<Run> }).done;
        expect(asked.code, asked.stderr).toBe(0);
        expect(asked.stdout).toBe("yes\n");
        continue;
      }
      if (command.includes("<id>/wait")) {
        const waiting = bash(command.replace("<id>", interactionId), { TOKEN: token });
        const interaction = (await broker.interactions.get(interactionId)) as Json;
        // The person answers while the curl long-poll waits.
        const answered = await fetch(`${broker.url}/v1/interactions/${interactionId}/respond`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({
            response_id: "readme-tour",
            request_digest: interaction.request_digest,
            nonce: interaction.nonce,
            choice_id: "allow",
          }),
        });
        expect(answered.status).toBe(200);
        const run = await waiting.done;
        expect(run.code, run.stderr).toBe(0);
        expect(JSON.parse(run.stdout)).toMatchObject({ id: interactionId, status: "answered" });
        continue;
      }
      const run = await bash(command, { TOKEN: token }).done;
      expect(run.code, `${command}\n${run.stderr}`).toBe(0);
      if (command.includes("/v1/notifications")) {
        expect(JSON.parse(run.stdout)).toMatchObject({ title: "Build finished", status: "active" });
      } else if (command.includes("/v1/interactions/request")) {
        interactionId = JSON.parse(run.stdout).id;
        expect(interactionId).toMatch(/^int_/);
      } else if (command.includes("notify send")) {
        expect(run.stdout).toMatch(/^ntf_[0-9a-f]{24}\n$/);
      } else if (command.includes("notify list")) {
        expect(run.stdout).toContain("Deploy blocked");
        expect(run.stdout).toContain("Build finished");
      } else if (command.includes("notify status")) {
        expect(run.stdout).toContain(String(broker.settings.port === 0 ? "" : broker.port));
        expect(run.stdout.toLowerCase()).toContain("ok");
      }
    }
  }, 120_000);
});

describe("the docs' /v1/events examples paste and run (issue 10)", () => {
  it.each([
    ["docs/api.md", "## POST /v1/events"],
    ["docs/arc.md", "### With curl"],
  ])("%s %s", async (file, heading) => {
    const commands = shellBlock(file, heading);
    const bin = mkdtempSync(join(tmpdir(), "notify-bin-"));
    try {
      // `notify` on PATH, as a reader who installed it has.
      const cli = join(ROOT, "packages/broker/dist/cli/main.js");
      const { writeFileSync, chmodSync } = await import("node:fs");
      writeFileSync(join(bin, "notify"), `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`);
      chmodSync(join(bin, "notify"), 0o755);
      const script = [`export NOTIFY_TOKEN=${broker.settings.authToken}`, `B=${broker.url}`, ...commands].join("\n");
      const run = await bash(script, { PATH: `${bin}:${env.PATH ?? ""}` }).done;
      expect(run.code, run.stderr).toBe(0);
      const reply = JSON.parse(run.stdout);
      expect(reply.notification.status).toBe("active");
      expect(reply.interaction).toMatchObject({ status: "pending" });
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

/** `notify` on PATH, as a reader who installed it has: a directory holding a wrapper of the built CLI. */
function notifyOnPath(): string {
  const bin = mkdtempSync(join(tmpdir(), "notify-bin-"));
  writeFileSync(
    join(bin, "notify"),
    `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, "packages/broker/dist/cli/main.js")}" "$@"\n`,
  );
  chmodSync(join(bin, "notify"), 0o755);
  return bin;
}

/** A loopback stand-in for an OpenAI-compatible upstream (Ollama's /v1): chat completions saying "Hi from the docs". */
const chatUpstream = () => startModelMock({ wire: "chat", text: "Hi from the docs" });

// Issue 21, item 14: router.md's set-up curls got 401 (no bearer token). Its shell blocks run here as written; the
// upstream they name (an Ollama on 11434) is a loopback stand-in, and only ports change.
describe("docs/router.md's shell blocks run as written (issue 21, item 14)", () => {
  it("Switching it on: the router on, an upstream added, a model answered through the router key", async () => {
    const upstream = await chatUpstream();
    const bin = notifyOnPath();
    try {
      const commands = shellBlock("docs/router.md", "## Switching it on").map((command) =>
        command.replaceAll("127.0.0.1:11434", `127.0.0.1:${upstream.port}`),
      );
      expect(commands[0]).toBe(`B=http://127.0.0.1:${broker.port}`);
      const run = await bash(commands.join("\n"), { PATH: `${bin}:${env.PATH ?? ""}` }).done;
      expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(0);
      expect(run.stdout).toContain('"Hi from the docs"');
      expect(upstream.hits).toEqual([
        expect.objectContaining({
          method: "POST",
          url: "/v1/chat/completions",
          body: expect.objectContaining({ model: "qwen3:8b" }),
        }),
      ]);
    } finally {
      await upstream.close();
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it("CLI: apply, status, key, key --regenerate and activity all succeed", async () => {
    const bin = notifyOnPath();
    const work = mkdtempSync(join(tmpdir(), "notify-docs-cli-"));
    try {
      writeFileSync(join(work, "notify.yaml"), "router:\n  enabled: true\n");
      const commands = shellBlock("docs/router.md", /\n## CLI\n/);
      expect(commands.map((command) => command.split(/\s+/).slice(0, 3).join(" "))).toEqual([
        "notify apply notify.yaml",
        "notify router status",
        "notify router key",
        "notify router key",
        "notify router activity",
      ]);
      for (const command of commands) {
        const run = await bash(`cd '${work}'\n${command}`, { PATH: `${bin}:${env.PATH ?? ""}` }).done;
        expect(run.code, `${command}\n${run.stderr}`).toBe(0);
      }
    } finally {
      rmSync(bin, { recursive: true, force: true });
      rmSync(work, { recursive: true, force: true });
    }
  });
});

describe("docs stand on their own (issue 10)", () => {
  it("no page links a file outside the repository (the contract documents are not in it)", async () => {
    const { readdirSync } = await import("node:fs");
    const pages = [
      "README.md",
      "bench/README.md",
      ...readdirSync(join(ROOT, "docs"))
        .filter((name) => name.endsWith(".md"))
        .map((name) => `docs/${name}`),
    ];
    for (const page of pages) {
      const text = readFileSync(join(ROOT, page), "utf8");
      expect(text, page).not.toMatch(/spec\/[0-9]-[a-z-]+\.md|\.\.\/shared\//);
    }
  });
});
