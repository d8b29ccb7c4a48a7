import { expect } from "vitest";
import type { DeliveryContext, DeliveryResult, OutboundPayload } from "../../../src/outbox/types.js";

// What every provider adapter's test sends and checks, whatever the transport (HTTP or SMTP).

export const MESSAGE = "The build finished: 42 tests passed.";

/** A notification payload as the outbox stores it (docs/outbound.md, Payload). */
export function samplePayload(overrides: Partial<OutboundPayload> = {}): OutboundPayload {
  return {
    id: "ntf_0123456789abcdef",
    title: "Build done",
    message: MESSAGE,
    type: "task_complete",
    priority: "normal",
    agent: "claude",
    project: "notify",
    createdAt: "2026-03-04T10:11:12.000Z",
    ...overrides,
  };
}

/** The payload of a route with IncludeMessage off (docs/outbound.md, "Delivery rules", rule 3). */
export function titleOnly(overrides: Partial<OutboundPayload> = {}): OutboundPayload {
  const { message: _dropped, ...rest } = samplePayload(overrides);
  return rest;
}

export function deliveryContext(signal: AbortSignal = AbortSignal.timeout(5_000)): DeliveryContext {
  return { idempotencyKey: "obx_00112233445566778899aabb", signal };
}

/** Secrets must never reach a DeliveryResult (docs/outbound.md, "Delivery rules", rule 6). */
export function expectNoSecrets(result: DeliveryResult, secrets: Record<string, string>): void {
  const json = JSON.stringify(result);
  for (const value of Object.values(secrets)) expect(json).not.toContain(value);
}
