import { PRESENTATION_DEFAULTS, type PresentationSettings } from "@notify/contracts/ui";
import type { InteractionDto } from "../../src/interactions/types.js";
import type { NotificationDto, Priority } from "../../src/notifications/types.js";

export function settings(patch: Partial<PresentationSettings> = {}): PresentationSettings {
  return { ...PRESENTATION_DEFAULTS, ...patch };
}

export function notification(id: string, patch: Partial<NotificationDto> = {}): NotificationDto {
  return {
    id,
    agent: "claude",
    type: "info",
    priority: "normal" as Priority,
    title: `Title ${id}`,
    message: `Message ${id}`,
    status: "active",
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    ...patch,
  };
}

export function question(id: string, patch: Partial<InteractionDto> = {}): InteractionDto {
  return {
    id,
    agent: "claude",
    kind: "permission",
    prompt: `May I run ${id}?`,
    choices: [
      { id: "allow", label: "Allow" },
      { id: "deny", label: "Deny" },
    ],
    text_max_length: 500,
    status: "pending",
    request_digest: "0".repeat(64),
    nonce: "nonce-secret",
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
    expires_at: "2026-01-01T01:00:00.000Z",
    ...patch,
  };
}
