import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startBroker } from "../../src/broker.js";
import { type Json, type RouterBroker, raw, startRouterBroker } from "./harness.js";
import { newSignin, writeSigninFile } from "./signin-fixtures.js";

/**
 * Smart switching rule 7 through a real broker: the default Codex account (~/.codex) plus the Codex entries of
 * config.json `RouterAgentAccounts`, reconciled at start and on `POST /ui/api/router/accounts/reconcile`.
 */

let home: string;
let router: RouterBroker;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "notify-rule7-"));
  writeSigninFile(join(home, ".codex"), newSignin("default", 3600, "acct-default"));
  writeSigninFile(join(home, "work"), newSignin("work", 3600, "acct-work"));
  router = await startRouterBroker({
    env: { HOME: home },
    config: {
      RouterAgentAccounts: [
        { agent: "codex", dir: "~/work", label: "Work" },
        { agent: "codex", dir: join(home, "personal"), label: "Personal" },
        { agent: "claude-code", dir: "~/.claude-work", label: "Claude work" },
        { agent: "codex", dir: "~/later", label: "Later" },
      ],
    },
  });
});

afterAll(async () => {
  await router?.close();
  rmSync(home, { recursive: true, force: true });
});

const upstreams = async (): Promise<Json[]> => (await router.ui("GET", "/router/upstreams")).body;

it("keeps one plan_signin_a provider per signed-in account, keeping slugs, leaving signed-out ones out", async () => {
  // Nothing to reconcile before the owner added the subscription preset: the router invents no upstream.
  expect(await upstreams()).toEqual([]);
  const base = {
    wire: "responses" as const,
    base_url: "https://chatgpt.com/backend-api/codex",
    models: ["gpt-5-codex"],
    auth: "plan_signin_a",
  };
  await router.addUpstream({ slug: "codex", ...base });
  await router.addUpstream({ slug: "codex-copy", credential_ref: `profile:${join(home, ".codex")}`, ...base });
  const first = await router.ui("POST", "/router/accounts/reconcile");
  expect(first.status).toBe(200);
  expect(first.body.repointed).toEqual(["codex-copy"]);
  expect(first.body.added).toEqual([]);
  expect(first.body.accounts.map((account: Json) => [account.label, account.signed_in])).toEqual([
    ["default", true],
    ["Work", true],
    ["Personal", false],
    ["Later", false],
  ]);
  const copy = (await upstreams()).find((upstream) => upstream.slug === "codex-copy");
  expect(copy.credential_ref).toBe(`profile:${join(home, "work")}`);

  // The third account signs in: asked again, the router adds its provider from the first one.
  writeSigninFile(join(home, "personal"), newSignin("personal", 3600, "acct-personal"));
  const second = await router.ui("POST", "/router/accounts/reconcile");
  expect(second.body).toMatchObject({ added: ["codex-personal"], repointed: [] });
  const added = (await upstreams()).find((upstream) => upstream.slug === "codex-personal");
  expect(added).toMatchObject({
    auth: "plan_signin_a",
    credential_ref: `profile:${join(home, "personal")}`,
    models: ["gpt-5-codex"],
    wire: "responses_wire",
    enabled: true,
  });
  const third = await router.ui("POST", "/router/accounts/reconcile");
  expect(third.body).toMatchObject({ added: [], repointed: [] });

  // At start: an account that signed in while the broker was stopped gets its provider when it starts again.
  writeSigninFile(join(home, "later"), newSignin("later", 3600, "acct-later"));
  await router.broker.close();
  const again = await startBroker({ dataDir: router.dataDir, port: 0, env: { HOME: home } });
  try {
    const reply = await raw(`${again.url}/ui/api/router/upstreams`, {
      headers: { authorization: `Bearer ${again.settings.authToken}` },
    });
    const later = (reply.body as Json[]).find((upstream) => upstream.slug === "codex-later");
    expect(later?.credential_ref).toBe(`profile:${join(home, "later")}`);
  } finally {
    await again.close();
  }
});
