// Issue 14, "Must show" 2: a question is sealed in the broker per paired device and opened with the device's
// private key: the plaintext is exactly the question payload (docs/relay.md, "The question payload"), contract_version
// 1, digest and nonce verbatim. Notifications go as notification payloads, which never carry a nonce
// (docs/api.md, "Interaction object": the nonce is not forwarded to unrelated services), and a route with
// IncludeMessage off carries no question at all.

import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Json } from "../helpers.js";
import { fetchPayloads, pairPhone, relayBroker, startRelay } from "./relay-harness.js";

const question = {
  agent: "claude",
  agent_instance: "claude-1",
  project: "notify",
  session_id: "s-42",
  turn_id: "turn-7",
  native_request_id: "native-9",
  kind: "single_choice",
  prompt: "Which branch should I deploy?\nmain is protected.",
  choices: [
    { id: "main", label: "main", detail: "production" },
    { id: "next", label: "next" },
  ],
  key: "deploy",
};

describe("sealing questions for paired phones (docs/relay.md, 'The question payload')", () => {
  it("every paired device opens the same payload: exactly the spec's fields, digest and nonce verbatim", async () => {
    const relay = await startRelay();
    const installation = await relay.enroll("laptop");
    const phones = [await pairPhone(relay, installation, "one"), await pairPhone(relay, installation, "two")];
    const broker = await relayBroker(relay.url, installation);
    const asked = await broker.call("POST", "/v1/interactions/request", question);
    expect(asked.status).toBe(201);
    const interaction = asked.body as Json;
    // The question and its notification half (issue 12: a native question has one), each an envelope.
    expect(await broker.dispatcher.runDue()).toBe(2);

    const expected = {
      payload_kind: "interaction-request",
      contract_version: "1",
      interaction: {
        id: interaction.id,
        key: "deploy",
        agent: "claude",
        agent_instance: "claude-1",
        project: "notify",
        session_id: "s-42",
        kind: "single_choice",
        prompt: question.prompt,
        choices: question.choices,
        text_max_length: 500,
        status: "pending",
        request_digest: interaction.request_digest,
        nonce: interaction.nonce,
        created_at: interaction.created_at,
        expires_at: interaction.expires_at,
        // The machine that asks: one phone serves several (issue 37, item 2).
        machine: hostname(),
      },
    };
    for (const phone of phones) {
      const payloads = (await fetchPayloads(relay, phone)) as Json[];
      // toStrictEqual: no extra field (turn_id, native_request_id stay on the machine), none missing.
      expect(payloads.filter((payload) => payload.payload_kind === "interaction-request")).toStrictEqual([expected]);
      // The companion notification names the question's text as its message and carries no nonce or digest.
      const companion = payloads.find((payload) => payload.payload_kind === "notification");
      expect(companion?.notification).toMatchObject({
        message: question.prompt,
        project: "notify",
        interaction_id: interaction.id,
      });
      expect(JSON.stringify(companion)).not.toContain(interaction.nonce);
      expect(JSON.stringify(companion)).not.toContain(interaction.request_digest);
    }
    // One envelope, two recipients: the JWE names each device by kid, with the spec's algorithms.
    const stored = (await relay.envelopes(phones[0] as Json)).json() as Json;
    const jwe = stored.envelopes[0].envelope.jwe;
    expect(stored.envelopes[0].envelope).toMatchObject({
      envelope_version: "1",
      sender_id: installation.installation_id,
    });
    expect(jwe.recipients.map((recipient: Json) => recipient.header.kid).sort()).toEqual(
      phones.map((phone) => phone.device_id).sort(),
    );
    expect(jwe.recipients.every((recipient: Json) => recipient.header.alg === "ECDH-ES+A256KW")).toBe(true);
    expect(JSON.parse(Buffer.from(jwe.protected, "base64url").toString())).toEqual({ enc: "A256GCM" });
    // Nothing readable on the relay: not the prompt, not the nonce, not the digest.
    const bytes = readFileSync(join((relay as unknown as { dir: { path: string } }).dir.path, "relay.db")).toString(
      "latin1",
    );
    for (const secret of ["Which branch", interaction.nonce, interaction.request_digest, "production"]) {
      expect(bytes).not.toContain(secret);
    }
  });

  it("a text question carries text_max_length and no choices; a device that is not a recipient cannot open it", async () => {
    const relay = await startRelay();
    const installation = await relay.enroll();
    const phone = await pairPhone(relay, installation);
    const broker = await relayBroker(relay.url, installation);
    const asked = await broker.call("POST", "/v1/interactions/request", {
      kind: "text",
      prompt: "Commit message?",
      text_max_length: 72,
    });
    await broker.dispatcher.runDue();
    const [payload] = (await fetchPayloads(relay, phone)) as Json[];
    expect(payload.interaction).toMatchObject({ kind: "text", text_max_length: 72, agent: "unknown", project: null });
    expect(payload.interaction).not.toHaveProperty("choices");
    expect(payload.interaction.id).toBe((asked.body as Json).id);

    // A phone paired later was not a recipient of that envelope and gets nothing from before.
    const later = await pairPhone(relay, installation, "later");
    expect(await fetchPayloads(relay, later)).toEqual([]);
  });

  it("an answerable ARC request sends the question and its companion notification, which has no nonce", async () => {
    const relay = await startRelay();
    const installation = await relay.enroll();
    const phone = await pairPhone(relay, installation);
    const broker = await relayBroker(relay.url, installation);
    const event = await broker.call("POST", "/v1/events", {
      arc_version: "0.2",
      event_id: "evt-1",
      event_type: "request.created",
      occurred_at: new Date(broker.clock.now()).toISOString(),
      sender: { id: "claude-code" },
      context: { project: "notify" },
      request: {
        key: "perm-1",
        kind: "permission",
        title: "Run rm -rf build?",
        message: "The agent wants to delete the build directory.",
        response: {
          kind: "permission",
          choices: [
            { id: "allow", label: "Allow" },
            { id: "deny", label: "Deny" },
          ],
          expires_at: new Date(broker.clock.now() + 600_000).toISOString(),
        },
      },
    });
    expect(event.status).toBe(201);
    const interaction = (event.body as Json).interaction;
    await broker.dispatcher.runDue();
    const payloads = (await fetchPayloads(relay, phone)) as Json[];
    const kinds = payloads.map((payload) => payload.payload_kind).sort();
    expect(kinds).toEqual(["interaction-request", "notification"]);
    const notice = payloads.find((payload) => payload.payload_kind === "notification");
    expect(notice).toMatchObject({
      contract_version: "1",
      notification: { title: "Run rm -rf build?", type: "permission_required", project: "notify" },
    });
    expect(JSON.stringify(notice)).not.toContain(interaction.nonce);
    expect(JSON.stringify(notice)).not.toContain(interaction.request_digest);
  });

  it("a route with IncludeMessage off never carries a question, and its notifications are titles only", async () => {
    const relay = await startRelay();
    const installation = await relay.enroll();
    const phone = await pairPhone(relay, installation);
    const broker = await relayBroker(relay.url, installation, { includeMessage: false });
    await broker.call("POST", "/v1/interactions/request", { prompt: "Allow the secret migration?" });
    await broker.call("POST", "/v1/notifications", { title: "Build done", message: "secret message text" });
    await broker.dispatcher.runDue();
    const payloads = (await fetchPayloads(relay, phone)) as Json[];
    // No question; the two notifications (the question's half and "Build done") go as titles only.
    expect(payloads.map((payload) => payload.payload_kind)).toEqual(["notification", "notification"]);
    expect(payloads.map((payload) => payload.notification.title).sort()).toEqual([
      "Build done",
      "Permission needed from unknown",
    ]);
    for (const payload of payloads) expect(payload.notification).not.toHaveProperty("message");
    expect(JSON.stringify(payloads)).not.toContain("secret");
    const publish = await broker.call("POST", `/v1/interactions/${"int_x"}/publish`);
    expect(publish.status).toBe(404);
  });
});
