import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Json, testBroker } from "./helpers.js";

const UI = { "x-notify-ui": "1" };

describe("/ui/api/types: custom type definitions in config.json (docs/desktop.md, 'Local presentation rules', rule 7)", () => {
  it("PUT replaces the definitions, keeps other config keys, and changes default priorities at once", async () => {
    const broker = testBroker();
    writeFileSync(join(broker.dataDir, "config.json"), JSON.stringify({ authToken: "x", theme: "dark" }));
    const put = await broker.call(
      "PUT",
      "/ui/api/types",
      [{ id: "deploy", label: "Deploy", enabled: true, defaultPriority: "critical", color: "#f00" }],
      UI,
    );
    expect(put.status).toBe(200);
    expect(((await broker.call("GET", "/ui/api/types")).body as Json[])[0]).toMatchObject({ id: "deploy" });
    const config = JSON.parse(readFileSync(join(broker.dataDir, "config.json"), "utf8"));
    expect(config).toMatchObject({
      authToken: "x",
      theme: "dark",
      notificationTypes: [{ id: "deploy", defaultPriority: "critical" }],
    });
    const created = (await broker.call("POST", "/v1/notifications", { title: "t", message: "m", type: "deploy" }))
      .body as Json;
    expect(created.priority).toBe("critical");
  });

  it("rejects invalid definitions without touching config.json", async () => {
    const broker = testBroker();
    for (const body of [{}, [{ id: "Bad-Id" }], [{ id: "a" }, { id: "a" }], [{ id: "a", defaultPriority: "urgent" }]]) {
      const reply = await broker.call("PUT", "/ui/api/types", body, UI);
      expect(reply.status, JSON.stringify(body)).toBe(400);
    }
    expect(() => readFileSync(join(broker.dataDir, "config.json"))).toThrow();
    expect((await broker.call("PUT", "/ui/api/types", [])).status).toBe(403);
  });
});
