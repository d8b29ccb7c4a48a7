import { describe, expect, it } from "vitest";
import { type Json, testBroker } from "../helpers.js";

// Issue 24 item 5: the route endpoints the Outbound page saves through (POST and PATCH /ui/api/outbound/routes)
// take and return the routing options; a PATCH that leaves an option out keeps it, null puts its default back
// (docs/routing.md, "Where the options live"; docs/apply.md).

const UI = { "x-notify-ui": "1" };
const PHONE = {
  delay_seconds: 120,
  when: "away",
  quiet_hours: { start: "22:00", end: "07:00", days: ["mon", "tue", "wed", "thu", "fri"], allow_critical: true },
};

async function withProvider() {
  const broker = testBroker();
  const provider = await broker.call(
    "POST",
    "/ui/api/outbound/providers",
    { kind: "webhook", name: "hook", settings: { url: "http://127.0.0.1:9/hook" } },
    UI,
  );
  expect(provider.status).toBe(201);
  return broker;
}

const listed = async (broker: ReturnType<typeof testBroker>, name: string): Promise<Json> =>
  ((await broker.call("GET", "/ui/api/outbound/routes")).body as Json[]).find((route) => route.name === name);

describe("/ui/api/outbound/routes and the routing options", () => {
  it("POST takes them and answers with them; GET lists them; a route without them has none", async () => {
    const broker = await withProvider();
    const created = await broker.call(
      "POST",
      "/ui/api/outbound/routes",
      { name: "Phone", provider: "hook", ...PHONE },
      UI,
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject(PHONE);
    expect(await listed(broker, "Phone")).toMatchObject(PHONE);

    // The page sends null for each option left at its default: nothing is stored.
    const plain = await broker.call(
      "POST",
      "/ui/api/outbound/routes",
      { name: "plain", provider: "hook", delay_seconds: null, when: null, quiet_hours: null },
      UI,
    );
    expect(plain.status).toBe(201);
    for (const field of ["delay_seconds", "when", "quiet_hours"]) expect(plain.body).not.toHaveProperty(field);
  });

  it("PATCH without them keeps them; null or the default clears one; a full set replaces them", async () => {
    const broker = await withProvider();
    const route = (
      await broker.call("POST", "/ui/api/outbound/routes", { name: "Phone", provider: "hook", ...PHONE }, UI)
    ).body as Json;
    const patch = (body: Json) => broker.call("PATCH", `/ui/api/outbound/routes/${route.id}`, body, UI);

    // The page's Enabled box and a gate edit from an older page send no options: they are kept.
    expect((await patch({ enabled: true })).body).toMatchObject({ enabled: true, ...PHONE });
    expect((await patch({ name: "Pager", project: "shop" })).body).toMatchObject({ name: "Pager", ...PHONE });
    expect(await listed(broker, "Pager")).toMatchObject(PHONE);

    const cleared = (await patch({ quiet_hours: null, when: "always" })).body as Json;
    expect(cleared).toMatchObject({ delay_seconds: 120 });
    expect(cleared).not.toHaveProperty("quiet_hours");
    expect(cleared).not.toHaveProperty("when");

    const replaced = (
      await patch({ delay_seconds: 30, when: "present", quiet_hours: { start: "12:00", end: "13:00" } })
    ).body as Json;
    expect(replaced).toMatchObject({
      delay_seconds: 30,
      when: "present",
      quiet_hours: { start: "12:00", end: "13:00" },
    });
    expect(replaced.quiet_hours).toEqual({ start: "12:00", end: "13:00" });
  });

  it("a refused PATCH (end missing, delay negative) answers 400 in the field's words and changes nothing", async () => {
    const broker = await withProvider();
    const route = (
      await broker.call("POST", "/ui/api/outbound/routes", { name: "Phone", provider: "hook", ...PHONE }, UI)
    ).body as Json;
    for (const [body, error] of [
      [{ quiet_hours: { start: "22:00" } }, "quiet_hours.end: must be HH:MM, 00:00-23:59"],
      [{ quiet_hours: { start: "22:00", end: "" } }, "quiet_hours.end: must be HH:MM, 00:00-23:59"],
      [{ delay_seconds: -60, when: "present" }, "delay_seconds: must be 0-86400 seconds (at most 24 h)"],
    ] as const) {
      const reply = await broker.call("PATCH", `/ui/api/outbound/routes/${route.id}`, body, UI);
      expect(reply.status).toBe(400);
      expect((reply.body as Json).error).toBe(error);
    }
    expect(await listed(broker, "Phone")).toEqual(route);
  });
});
