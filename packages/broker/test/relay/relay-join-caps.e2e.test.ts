// Issue 37, item 2: the relay caps an owner's machines (20) and unused join codes (5) (docs/relay.md, "Several
// machines, one phone"). The broker turns those refusals into what to do, for `notify relay pair --join` and
// `notify relay join`, rather than "HTTP 409"; and `--machine` names a machine at the relay and on the phone's cards.
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers.js";
import { addRelayProvider, liveBroker } from "./broker-client.js";
import { startRelay } from "./relay-harness.js";

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

describe("an owner's caps at the relay, as the broker words them", () => {
  it("a sixth unused join code and a 21st machine are refused with what to do", { timeout: 60_000 }, async () => {
    const relay = await startRelay();
    const laptop = await liveBroker(tempDir());
    const desktop = await liveBroker(tempDir());
    try {
      const first = await relay.enroll("laptop");
      await addRelayProvider(laptop, relay.url, first);
      const codes: string[] = [];
      for (let index = 0; index < 5; index++) {
        const reply = await laptop.call("POST", "/ui/api/relay/joins");
        expect(reply.status).toBe(201);
        codes.push((reply.body as { code: string }).code);
      }
      const sixth = await laptop.call("POST", "/ui/api/relay/joins");
      expect(sixth.status).toBe(502);
      expect(sixth.body).toMatchObject({
        error:
          "the relay refused: this owner already holds the most unused join codes it allows; use one, or wait " +
          "until one expires (10 minutes)",
      });

      // 19 machines at the relay (the codes above used, then more), and one code left for the desktop.
      const join = (code: string, name: string) =>
        relay.request({ url: "/v1/installations/join", body: { code, name } });
      for (const [index, code] of codes.slice(0, 4).entries()) {
        expect((await join(code, `machine ${index + 2}`)).status).toBe(201);
      }
      for (let count = 6; count <= 19; count++) {
        const code = (await relay.request({ url: "/v1/joins", headers: auth(first.token), body: {} })).json().code;
        expect((await join(code, `machine ${count}`)).status).toBe(201);
      }
      const spare = (await relay.request({ url: "/v1/joins", headers: auth(first.token), body: {} })).json().code;
      expect((await join(spare, "machine 20")).status).toBe(201);

      const refused = await desktop.call("POST", "/ui/api/relay/join", { url: relay.url, code: codes[4] });
      expect(refused.status).toBe(502);
      expect(JSON.stringify(refused.body)).toContain(
        "the relay refused: this owner already has the most machines it allows; run notify relay leave on one first",
      );
      // Nothing saved on the desktop; the laptop gets the same words for a new code.
      expect((await desktop.call("GET", "/ui/api/outbound/providers")).body).toEqual([]);
      expect(JSON.stringify((await laptop.call("POST", "/ui/api/relay/joins")).body)).toContain(
        "already has the most machines it allows",
      );
    } finally {
      await laptop.close();
      await desktop.close();
    }
  });

  it("--machine names the machine at the relay and is kept with the relay provider; a bad one is refused", {
    timeout: 60_000,
  }, async () => {
    const relay = await startRelay();
    const laptop = await liveBroker(tempDir());
    const desktop = await liveBroker(tempDir());
    try {
      const first = await relay.enroll("laptop");
      await addRelayProvider(laptop, relay.url, first);
      const code = ((await laptop.call("POST", "/ui/api/relay/joins")).body as { code: string }).code;
      const bad = await desktop.call("POST", "/ui/api/relay/join", { url: relay.url, code, machine: "dev\u0007box" });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({
        error: "machine must be 1-100 characters, without control characters",
        field: "machine",
      });
      const joined = await desktop.call("POST", "/ui/api/relay/join", { url: relay.url, code, machine: "dev box" });
      expect(joined.status, JSON.stringify(joined.body)).toBe(201);
      expect((joined.body as { settings: Record<string, unknown> }).settings).toMatchObject({ machine: "dev box" });
      const machines = (await laptop.call("GET", "/ui/api/relay/machines")).body as { machines: { name: string }[] };
      expect(machines.machines.map((machine) => machine.name)).toEqual(["laptop", "dev box"]);
    } finally {
      await laptop.close();
      await desktop.close();
    }
  });
});
