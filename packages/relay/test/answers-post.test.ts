import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Enrolled, type Paired, RelayHarness, type Transport } from "./helpers.js";

/** docs/relay.md, "`POST /v1/interaction-responses` (device token)": every ordered check and every status row. */
describe.each<Transport>(["inject", "socket"])("POST /v1/interaction-responses over %s", (transport) => {
  let relay: ReturnType<typeof RelayHarness.sqlite>;
  let installation: Enrolled;
  let device: Paired;

  beforeEach(async () => {
    relay = RelayHarness.sqlite();
    if (transport === "socket") await relay.listen();
    installation = await relay.enroll("laptop");
    device = await relay.pair(installation);
  });
  afterEach(async () => relay.close());

  const answer = (fields: Record<string, unknown> = {}) => relay.answer(device, installation, fields);
  const without = (name: string, fields: Record<string, unknown> = {}) => {
    const body = answer(fields);
    delete body[name];
    return body;
  };

  it("201 stores the answer: {status: accepted, response_id}", async () => {
    const body = answer();
    const reply = await relay.postAnswer(device, body);
    expect(reply.status).toBe(201);
    expect(reply.json()).toEqual({ status: "accepted", response_id: body.response_id });
  });

  it("accepts a text answer and the upper bounds (nonce 128, choice_id 64, text 2000)", async () => {
    expect((await relay.postAnswer(device, answer({ nonce: "n".repeat(128), choice_id: "c".repeat(64) }))).status).toBe(
      201,
    );
    const text = without("choice_id", { text: "t".repeat(2000) });
    expect((await relay.postAnswer(device, text)).status).toBe(201);
  });

  describe("check 1: the device token", () => {
    it("401 without a token, with an unknown one, and after revocation", async () => {
      const body = answer();
      const none = await relay.request({ url: "/v1/interaction-responses", body });
      expect(none.status).toBe(401);
      expect(none.json().error.code).toBe("unauthorized");
      expect((await relay.postAnswer("nrd_unknown", body)).status).toBe(401);
      // An installation token is not a device token.
      expect((await relay.postAnswer(installation.token, body)).status).toBe(401);
      const revoked = await relay.request({
        method: "DELETE",
        url: `/v1/devices/${device.device_id}`,
        headers: { authorization: `Bearer ${installation.token}` },
      });
      expect(revoked.status).toBe(204);
      expect((await relay.postAnswer(device, body)).status).toBe(401);
    });
  });

  describe("check 2: contract_version", () => {
    it("400 for another version, a number, or none", async () => {
      for (const body of [
        answer({ contract_version: "2" }),
        answer({ contract_version: 1 }),
        without("contract_version"),
      ]) {
        const reply = await relay.postAnswer(device, body);
        expect(reply.status).toBe(400);
        expect(reply.json().error.code).toBe("unsupported_contract_version");
      }
    });
  });

  describe("check 3: required fields", () => {
    it.each(["response_id", "interaction_id", "request_digest", "nonce"])("400 without %s", async (name) => {
      const reply = await relay.postAnswer(device, without(name));
      expect(reply.status).toBe(400);
      expect(reply.json().error).toMatchObject({ code: "invalid_request", message: `${name} is required` });
      expect((await relay.postAnswer(device, answer({ [name]: "" }))).status).toBe(400);
      expect((await relay.postAnswer(device, answer({ [name]: 7 }))).status).toBe(400);
    });
  });

  describe("check 4: exactly one of choice_id and text", () => {
    it("400 with both or neither", async () => {
      for (const body of [answer({ text: "yes" }), without("choice_id")]) {
        const reply = await relay.postAnswer(device, body);
        expect(reply.status).toBe(400);
        expect(reply.json().error.message).toBe("exactly one of choice_id and text is required");
      }
    });
  });

  describe("check 5: bounds", () => {
    it("400 for nonce over 128, choice_id over 64, text over 2000, response_id over 128", async () => {
      const bodies = [
        answer({ nonce: "n".repeat(129) }),
        answer({ choice_id: "c".repeat(65) }),
        without("choice_id", { text: "t".repeat(2001) }),
        answer({ response_id: "r".repeat(129) }),
        answer({ choice_id: 5 }),
      ];
      for (const body of bodies) expect((await relay.postAnswer(device, body)).status).toBe(400);
    });
  });

  describe("check 6: device_id", () => {
    it("403 when device_id is not the authenticated device, and the pairing stays", async () => {
      const other = await relay.pair(installation);
      const reply = await relay.postAnswer(device, answer({ device_id: other.device_id }));
      expect(reply.status).toBe(403);
      expect(reply.json().error.code).toBe("forbidden");
      expect((await relay.postAnswer(device, without("device_id"))).status).toBe(403);
      const me = await relay.request({ url: "/v1/device", headers: { authorization: `Bearer ${device.token}` } });
      expect(me.status).toBe(200);
    });
  });

  describe("check 7: owner or direct link", () => {
    it("403 for another owner's installation, an unknown one, or none", async () => {
      const stranger = await relay.enroll("someone else");
      for (const installationId of [stranger.installation_id, "ins_nope", undefined]) {
        const body = answer({ installation_id: installationId });
        const reply = await relay.postAnswer(device, body);
        expect(reply.status).toBe(403);
      }
    });

    it("a device of the same owner may answer for it; a legacy direct link only for its installation", async () => {
      const direct = await relay.pair(installation, {}, { direct: true });
      const me = await relay.request({ url: "/v1/device", headers: { authorization: `Bearer ${direct.token}` } });
      expect(me.json()).toMatchObject({ installation_id: installation.installation_id, owner_id: null });
      expect((await relay.postAnswer(direct, relay.answer(direct, installation))).status).toBe(201);
      const stranger = await relay.enroll("someone else");
      const elsewhere = relay.answer(direct, installation, { installation_id: stranger.installation_id });
      expect((await relay.postAnswer(direct, elsewhere)).status).toBe(403);
    });
  });

  describe("check 8: media type and size, before JSON parsing", () => {
    it("415 for another media type or none", async () => {
      const body = JSON.stringify(answer());
      for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/jsonx"]) {
        const reply = await relay.postAnswer(device, body, { "content-type": type });
        expect(reply.status, type).toBe(415);
        expect(reply.json().error.code).toBe("unsupported_media_type");
      }
      const untyped = await relay.request({
        url: "/v1/interaction-responses",
        headers: { authorization: `Bearer ${device.token}`, "content-type": "" },
        body,
      });
      expect(untyped.status).toBe(415);
      expect((await relay.postAnswer(device, body, { "content-type": "application/json; charset=utf-8" })).status).toBe(
        201,
      );
    });

    it("413 over 64 KiB; exactly 64 KiB is read", async () => {
      const body = JSON.stringify(answer());
      const exact = body + " ".repeat(64 * 1024 - Buffer.byteLength(body));
      expect((await relay.postAnswer(device, exact)).status).toBe(201);
      const over = JSON.stringify(answer()) + " ".repeat(64 * 1024);
      const reply = await relay.postAnswer(device, over);
      expect(reply.status).toBe(413);
      expect(reply.json().error.code).toBe("payload_too_large");
    });

    it("400 for a body that is not JSON", async () => {
      expect((await relay.postAnswer(device, "{not json")).status).toBe(400);
    });
  });

  describe("check 9: unique per (installation_id, response_id)", () => {
    it("409 duplicate for byte-identical answer fields, 409 conflict for a different answer", async () => {
      const body = answer();
      expect((await relay.postAnswer(device, body)).status).toBe(201);
      const duplicate = await relay.postAnswer(device, { ...body });
      expect(duplicate.status).toBe(409);
      expect(duplicate.json()).toEqual({ status: "duplicate", response_id: body.response_id });
      const conflict = await relay.postAnswer(device, { ...body, choice_id: "deny" });
      expect(conflict.status).toBe(409);
      expect(conflict.json().error.code).toBe("conflict");
      expect(conflict.json().status).toBeUndefined();
    });

    it("the same response_id under another installation is another answer", async () => {
      const second = await relay.enroll("desktop");
      const body = answer({ response_id: "shared" });
      expect((await relay.postAnswer(device, body)).status).toBe(201);
      const phone = await relay.pair(second);
      expect((await relay.postAnswer(phone, relay.answer(phone, second, { response_id: "shared" }))).status).toBe(201);
    });

    it("unknown fields are not answer fields: ignored, and not part of the duplicate comparison", async () => {
      const body = answer();
      expect((await relay.postAnswer(device, { ...body, extra: 1 })).status).toBe(201);
      expect((await relay.postAnswer(device, body)).status).toBe(409);
      const polled = (await relay.poll(installation)).json();
      expect(polled.responses[0].extra).toBeUndefined();
    });
  });

  describe("a request failing two checks gets the earlier one's status", () => {
    it("1 before 8: bad token and wrong media type or oversize is 401", async () => {
      expect((await relay.postAnswer("nrd_bad", "x", { "content-type": "text/plain" })).status).toBe(401);
      expect((await relay.postAnswer("nrd_bad", "x".repeat(70_000))).status).toBe(401);
    });
    it("1 before 2: bad token and bad contract_version is 401", async () => {
      expect((await relay.postAnswer("nrd_bad", answer({ contract_version: "9" }))).status).toBe(401);
    });
    it("8 before 2: media type and size are checked before the body is parsed", async () => {
      const bad = JSON.stringify(answer({ contract_version: "9" }));
      expect((await relay.postAnswer(device, bad, { "content-type": "text/plain" })).status).toBe(415);
      expect((await relay.postAnswer(device, bad + " ".repeat(70_000))).status).toBe(413);
    });
    it("415 before 413: wrong media type and oversize is 415", async () => {
      expect((await relay.postAnswer(device, "x".repeat(70_000), { "content-type": "text/plain" })).status).toBe(415);
    });
    it("2 before 3: bad contract_version and a missing field reports the version", async () => {
      const reply = await relay.postAnswer(device, without("nonce", { contract_version: "2" }));
      expect(reply.json().error.code).toBe("unsupported_contract_version");
    });
    it("3 before 4: a missing field and both choice_id and text reports the field", async () => {
      const reply = await relay.postAnswer(device, without("interaction_id", { text: "x" }));
      expect(reply.json().error.message).toBe("interaction_id is required");
    });
    it("4 before 5: both fields and an oversized nonce reports exactly-one", async () => {
      const reply = await relay.postAnswer(device, answer({ text: "x", nonce: "n".repeat(200) }));
      expect(reply.json().error.message).toBe("exactly one of choice_id and text is required");
    });
    it("5 before 6: an oversized text and a foreign device_id is 400", async () => {
      const body = without("choice_id", { text: "t".repeat(2001), device_id: "dev_other" });
      expect((await relay.postAnswer(device, body)).status).toBe(400);
    });
    it("6 before 7: a foreign device_id and a foreign installation reports the device", async () => {
      const reply = await relay.postAnswer(device, answer({ device_id: "dev_other", installation_id: "ins_other" }));
      expect(reply.status).toBe(403);
      expect(reply.json().error.message).toBe("device_id is not the authenticated device");
    });
    it("7 before 9: a duplicate response_id for a foreign installation is 403, not 409", async () => {
      const body = answer();
      expect((await relay.postAnswer(device, body)).status).toBe(201);
      expect((await relay.postAnswer(device, { ...body, installation_id: "ins_other" })).status).toBe(403);
    });
  });
});
