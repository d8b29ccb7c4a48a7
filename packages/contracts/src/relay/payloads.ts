import { fitItemContext, type ItemContext } from "../item-context.js";
import type { ArcInteraction } from "../producer.js";
import { RELAY_CONTRACT_VERSION } from "./version.js";

/** The plaintext of a question envelope (docs/relay.md, "The question payload"). */
export interface InteractionRequestPayload {
  payload_kind: "interaction-request";
  contract_version: typeof RELAY_CONTRACT_VERSION;
  interaction: {
    id: string;
    key: string | null;
    agent: string | null;
    agent_instance: string | null;
    project: string | null;
    session_id: string | null;
    kind: ArcInteraction["kind"];
    prompt: string;
    choices?: { id: string; label: string; detail?: string }[];
    text_max_length: number;
    status: "pending";
    request_digest: string;
    nonce: string;
    created_at: string;
    expires_at: string;
    /** What the question carries besides its prompt (docs/relay.md, "The question payload"), cut to fit. */
    context?: ItemContext;
    /** The machine that asks (its host name): one phone serves several machines (issue 37, item 2). */
    machine?: string;
  };
}

/** A machine's name in a payload is at most this many characters (the relay's installation name limit). */
export const RELAY_MACHINE_MAX_CHARS = 100;

/**
 * A context sealed into a question's envelope is at most this many bytes of JSON: with the prompt, the base64 of
 * the ciphertext and one recipient entry per device, the envelope stays well inside the relay's 64 KiB body.
 */
export const RELAY_CONTEXT_MAX_BYTES = 36 * 1024;

/**
 * A notification payload (docs/relay.md, "The question payload": anything that is not `interaction-request`): the
 * companion notification of a relay route, and (beyond v1) `interaction_status` when a question settled elsewhere, so
 * the phone closes its card. Never a nonce or digest.
 */
export interface NotificationPayload {
  payload_kind: "notification";
  contract_version: typeof RELAY_CONTRACT_VERSION;
  notification: {
    id: string;
    title: string;
    message?: string;
    type: string;
    priority: string;
    agent: string;
    project?: string;
    key?: string;
    created_at: string;
    /** Set when this notice says a question is closed: its id and its status. */
    interaction_id?: string;
    interaction_status?: string;
  };
}

export type RelayPayload = InteractionRequestPayload | NotificationPayload;

/**
 * The interaction-request payload of a pending question: exactly the fields of docs/relay.md, "The question payload"
 * (absent optional ones as null), the digest and nonce verbatim. Host correlation values that payload does not list
 * (`turn_id`,
 * `native_request_id`) stay on the machine.
 */
export function interactionRequestPayload(
  interaction: ArcInteraction,
  context?: ItemContext,
  machine?: string,
): InteractionRequestPayload {
  const payload: InteractionRequestPayload = {
    payload_kind: "interaction-request",
    contract_version: RELAY_CONTRACT_VERSION,
    interaction: {
      id: interaction.id,
      key: interaction.key ?? null,
      agent: interaction.agent ?? null,
      agent_instance: interaction.agent_instance ?? null,
      project: interaction.project ?? null,
      session_id: interaction.session_id ?? null,
      kind: interaction.kind,
      prompt: interaction.prompt,
      text_max_length: interaction.text_max_length,
      status: "pending",
      request_digest: interaction.request_digest,
      nonce: interaction.nonce,
      created_at: interaction.created_at,
      expires_at: interaction.expires_at,
    },
  };
  if (interaction.kind !== "text") {
    payload.interaction.choices = interaction.choices.map((choice) =>
      choice.detail === undefined
        ? { id: choice.id, label: choice.label }
        : { id: choice.id, label: choice.label, detail: choice.detail },
    );
  }
  const fitted = context === undefined ? undefined : fitItemContext(context, RELAY_CONTEXT_MAX_BYTES);
  if (fitted !== undefined) payload.interaction.context = fitted;
  const name = machine === undefined ? "" : Array.from(machine).slice(0, RELAY_MACHINE_MAX_CHARS).join("");
  if (name !== "") payload.interaction.machine = name;
  return payload;
}
