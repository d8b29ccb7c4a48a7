import { type ModelMock, startModelMock } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RouterBroker, startRouterBroker } from "./harness.js";

/**
 * Smart switching through the proxy (docs/router.md, "Smart switching"): strategies seen from the upstreams' side, with
 * the official SDK.
 */
describe("smart switching through a real broker", () => {
  let router: RouterBroker;
  let first: ModelMock;
  let second: ModelMock;

  beforeAll(async () => {
    router = await startRouterBroker();
    first = await startModelMock("chat");
    second = await startModelMock("chat");
    await router.addUpstream({ slug: "first", wire: "chat", base_url: first.url, models: ["Shared-Model"] });
    await router.addUpstream({ slug: "second", wire: "chat", base_url: second.url, models: ["vendor/shared-model"] });
  });
  afterAll(async () => {
    await router.close();
    await first.close();
    await second.close();
  });

  const strategy = async (value: string) => {
    const reply = await router.ui("PUT", "/router/settings", { switch_strategy: value });
    expect(reply.status, reply.text).toBe(200);
  };
  const ask = async (model = "shared-model") => {
    const completion = await router.openai().chat.completions.create({
      model,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(completion.choices[0]?.message.content).toContain("Hello");
  };

  it("off: a model listed only under other spellings is not found (no same-model folding)", async () => {
    await strategy("off");
    await expect(
      router.openai().chat.completions.create({ model: "shared-model", messages: [{ role: "user", content: "x" }] }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it("round_robin alternates the starting provider and sends each its own model ID", async () => {
    await strategy("round_robin");
    const before = [first.hits.length, second.hits.length];
    for (let index = 0; index < 4; index++) await ask();
    expect(first.hits.length - (before[0] as number)).toBe(2);
    expect(second.hits.length - (before[1] as number)).toBe(2);
    expect(first.hits.at(-1)?.body.model).toBe("Shared-Model");
    expect(second.hits.at(-1)?.body.model).toBe("vendor/shared-model");
  });

  it("ordered starts at the first provider every time, and fails over to the same model elsewhere", async () => {
    await strategy("ordered");
    const before = [first.hits.length, second.hits.length];
    await ask();
    await ask();
    expect(first.hits.length - (before[0] as number)).toBe(2);
    expect(second.hits.length - (before[1] as number)).toBe(0);
    // 408 fails over without a cooldown: the second serves this one, the next starts at the first again.
    first.script.push({ kind: "status", status: 408 });
    await ask();
    expect(second.hits.length - (before[1] as number)).toBe(1);
    await ask();
    expect(first.hits.length - (before[0] as number)).toBe(4);
  });

  it("sticky stays on the target that last succeeded until it fails", async () => {
    await strategy("sticky");
    first.script.push({ kind: "status", status: 408 });
    await ask(); // first fails (no cooldown), second succeeds and is kept
    const before = [first.hits.length, second.hits.length];
    await ask();
    await ask();
    expect(first.hits.length - (before[0] as number)).toBe(0);
    expect(second.hits.length - (before[1] as number)).toBe(2);
    second.script.push({ kind: "status", status: 408 });
    await ask(); // second fails, first serves and is kept
    const after = [first.hits.length, second.hits.length];
    await ask();
    expect(first.hits.length - (after[0] as number)).toBe(1);
    expect(second.hits.length - (after[1] as number)).toBe(0);
    const row = (await router.activity(1))[0];
    expect(row).toMatchObject({ route_kind: "model_list", upstream_slug: "first", outcome: "ok" });
  });
});
