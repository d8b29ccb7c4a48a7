import { type ModelMock, startModelMock } from "@notify/test-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RouterBroker, raw, startRouterBroker } from "./harness.js";

/**
 * Effort mapping through a real broker (docs/router.md, "Effort mapping"): what each upstream receives, with the
 * official SDKs.
 */
describe("effort mapping through the proxy", () => {
  let router: RouterBroker;
  let chat: ModelMock;
  let messages: ModelMock;
  let responses: ModelMock;

  beforeAll(async () => {
    router = await startRouterBroker();
    chat = await startModelMock("chat");
    messages = await startModelMock("messages");
    responses = await startModelMock("responses");
    await router.addUpstream({ slug: "chat", wire: "chat", base_url: chat.url });
    await router.addUpstream({ slug: "msg", wire: "messages", base_url: messages.url });
    await router.addUpstream({ slug: "resp", wire: "responses", base_url: responses.url });
  });
  afterAll(async () => {
    await router.close();
    await chat.close();
    await messages.close();
    await responses.close();
  });

  const chatEffort = async (model: string, effort?: string) => {
    await router.openai().chat.completions.create({
      model,
      messages: [{ role: "user", content: "hi" }],
      ...(effort ? { reasoning_effort: effort as "high" } : {}),
    });
    return chat.hits.at(-1)?.body;
  };

  it("chat to chat: max collapses to the family's top, identity below it, unknown models omit", async () => {
    expect((await chatEffort("chat/gpt-5", "max")).reasoning_effort).toBe("high");
    expect((await chatEffort("chat/gpt-5", "low")).reasoning_effort).toBe("low");
    expect((await chatEffort("chat/gpt-5", "minimal")).reasoning_effort).toBe("minimal");
    expect((await chatEffort("chat/o3", "minimal")).reasoning_effort).toBe("low");
    expect("reasoning_effort" in (await chatEffort("chat/llama3", "high"))).toBe(false);
    expect("reasoning_effort" in (await chatEffort("chat/claude-sonnet-4-5", "high"))).toBe(false);
    expect("reasoning_effort" in (await chatEffort("chat/gpt-5"))).toBe(false);
  });

  it("messages to a messages-wire aggregator: only output_config.effort changes, every native field stays", async () => {
    const client = router.anthropic();
    await client.messages.create({
      model: "msg/claude-opus-4-5",
      max_tokens: 32,
      messages: [{ role: "user", content: "hi" }],
      metadata: { user_id: "u-1" },
      // biome-ignore lint/suspicious/noExplicitAny: fields newer than the SDK's types.
      ...({ output_config: { effort: "max", format: { type: "json_schema", schema: { type: "object" } } } } as any),
    });
    const body = messages.hits.at(-1)?.body;
    expect(body.output_config).toEqual({ effort: "high", format: { type: "json_schema", schema: { type: "object" } } });
    expect(body.metadata).toEqual({ user_id: "u-1" });
    // Equal mapped value: the field is as the client wrote it.
    const text = JSON.stringify({
      model: "msg/claude-opus-4-6",
      max_tokens: 32,
      messages: [{ role: "user", content: "hi" }],
      output_config: { effort: "max" },
    });
    const reply = await raw(`${router.base}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": router.key },
      body: text,
    });
    expect(reply.status, reply.text).toBe(200);
    expect(messages.hits.at(-1)?.body.output_config).toEqual({ effort: "max" });
    // A model with no effort setting: the field goes, the rest of output_config stays.
    await client.messages.create({
      model: "msg/claude-sonnet-4-5",
      max_tokens: 32,
      messages: [{ role: "user", content: "hi" }],
      // biome-ignore lint/suspicious/noExplicitAny: fields newer than the SDK's types.
      ...({ output_config: { effort: "low" } } as any),
    });
    expect(messages.hits.at(-1)?.body.output_config).toBeUndefined();
  });

  it("translated hops write the target wire's field: responses gets reasoning.effort, chat reasoning_effort", async () => {
    await router.anthropic().messages.create({
      model: "resp/gpt-5.2",
      max_tokens: 32,
      messages: [{ role: "user", content: "hi" }],
      // biome-ignore lint/suspicious/noExplicitAny: fields newer than the SDK's types.
      ...({ output_config: { effort: "max" } } as any),
    });
    expect(responses.hits.at(-1)?.body.reasoning).toEqual({ effort: "xhigh" });
    await router
      .openai()
      .responses.create({ model: "chat/gemini-3-pro", input: "hi", reasoning: { effort: "medium" } });
    expect(chat.hits.at(-1)?.body.reasoning_effort).toBe("high");
  });

  it("override sets: stored through /ui/api, refused unless bounded and monotonic, per-model over family", async () => {
    const notMonotonic = await router.ui("PUT", "/router/effort/families/gpt-5", { levels: { max: "medium" } });
    expect(notMonotonic.status).toBe(400);
    expect(notMonotonic.body.error).toMatch(/not monotonic/);
    const unbounded = await router.ui("PUT", "/router/effort/families/gpt-5", { levels: { max: "xhigh" } });
    expect(unbounded.status).toBe(400);
    expect((await router.ui("PUT", "/router/effort/families/nope", { levels: {} })).status).toBe(404);
    expect((await router.ui("PUT", "/router/effort/families/gpt-5", { levels: { low: 3 } })).status).toBe(400);

    const family = await router.ui("PUT", "/router/effort/families/gpt-5", {
      levels: { high: "medium", xhigh: "medium", max: "medium" },
      default: "low",
    });
    expect(family.status, family.text).toBe(200);
    const view = family.body.families.find((entry: { id: string }) => entry.id === "gpt-5");
    expect(view.effective.levels.max).toBe("medium");
    expect(view.automatic.levels.max).toBe("high");
    expect((await chatEffort("chat/gpt-5", "max")).reasoning_effort).toBe("medium");
    expect((await chatEffort("chat/gpt-5")).reasoning_effort).toBe("low");

    // Per model: checked on top of the family set (low above medium would break monotonicity).
    const refused = await router.ui("PUT", "/router/effort/models", { model: "chat/gpt-5", levels: { low: "high" } });
    expect(refused.status).toBe(400);
    const model = await router.ui("PUT", "/router/effort/models", { model: "chat/gpt-5", levels: { max: null } });
    expect(model.status, model.text).toBe(200);
    expect(model.body.models["chat/gpt-5"]).toEqual({ levels: { max: null } });
    expect("reasoning_effort" in (await chatEffort("chat/gpt-5", "max"))).toBe(false);
    expect((await chatEffort("chat/gpt-5", "xhigh")).reasoning_effort).toBe("medium");
    // Another provider's gpt-5 keeps the family mapping.
    await router.addUpstream({ slug: "chat2", wire: "chat", base_url: chat.url });
    expect((await chatEffort("chat2/gpt-5", "max")).reasoning_effort).toBe("medium");

    // A model of no family omits effort until the owner gives it a per-model set.
    expect("reasoning_effort" in (await chatEffort("chat/house-model", "max"))).toBe(false);
    const house = await router.ui("PUT", "/router/effort/models", {
      model: "chat/house-model",
      levels: { xhigh: "high", max: "high" },
    });
    expect(house.status, house.text).toBe(200);
    expect((await chatEffort("chat/house-model", "max")).reasoning_effort).toBe("high");
    expect((await chatEffort("chat/house-model", "low")).reasoning_effort).toBe("low");
    expect((await router.ui("DELETE", "/router/effort/models?model=chat%2Fhouse-model")).status).toBe(204);

    expect((await router.ui("DELETE", "/router/effort/models?model=chat%2Fgpt-5")).status).toBe(204);
    expect((await router.ui("DELETE", "/router/effort/families/gpt-5")).status).toBe(204);
    expect((await router.ui("DELETE", "/router/effort/families/gpt-5")).status).toBe(404);
    expect((await chatEffort("chat/gpt-5", "max")).reasoning_effort).toBe("high");
    const listed = await router.ui("GET", "/router/effort");
    expect(listed.body.families).toHaveLength(10);
    expect(listed.body.models).toEqual({});
  });
});
