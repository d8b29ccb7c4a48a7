import type { ItemContext } from "@notify/contracts/item-context";
import { invalid } from "../../domain/errors.js";
import { readableText } from "../../outbox/providers/readable-text.js";
import { truncate } from "../../outbox/providers/text-limits.js";
import type { DeliveryResult, OutboundPayload, ProviderAdapter } from "../../outbox/types.js";
import { allowedUserIds, apiBaseUrl, chatSettings } from "../chat-settings.js";
import { contextBlock, notificationText, questionBody } from "../question-text.js";
import { type ChatQuestions, posted, TEXT_BUTTON_LABEL } from "../questions.js";
import { BOT_TOKEN, DISCORD_API_BASE_URL, discordAccount, discordApi } from "./api.js";

/** A message's `content`: at most 2000 characters; a button's label 80; 5 buttons a row, 5 rows. */
const CONTENT_MAX = 2000;
const LABEL_MAX = 80;
const BUTTONS_MAX = 25;

export { TEXT_BUTTON_LABEL };

/** Discord snowflakes (channel and user ids): decimal strings, as the API writes them. */
const SNOWFLAKE = /^\d{1,20}$/;

/** Discord's markdown characters and `<` (mentions) escaped with `\`, so an agent's text shows as written. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\*_~`|>#<[\]()-]/g, (character) => `\\${character}`);
}

/** Readable (controls made visible), cut and escaped to fit `max` characters once escaped. */
/**
 * What a question asks about as a fenced code block (markdown is not read inside it; a fence inside is broken up),
 * starting with a newline, within `max` characters; "" when there is none or no room.
 */
export function codeBlock(context: ItemContext | undefined, max: number): string {
  const open = context?.kind === "diff" ? "\n```diff\n" : "\n```\n";
  const block = contextBlock(context, max - open.length - 4);
  if (block === undefined) return "";
  const code = `${open}${block.replaceAll("```", "`\u200b`\u200b`")}\n\`\`\``;
  return code.length <= max ? code : "";
}

export function discordText(text: string, max: number = CONTENT_MAX): string {
  const readable = readableText(text);
  let cut = max;
  for (;;) {
    const escaped = escapeMarkdown(truncate(readable, cut));
    if (escaped.length <= max || cut <= 1) return escaped.slice(0, max);
    cut -= escaped.length - max;
  }
}

/** Mentions in the text never ping anyone: agents write it. */
export const NO_MENTIONS = { parse: [] as string[] };

/**
 * The `discord_app` provider kind (issue 34, item 2): a Discord application's bot, posting to `channelId` with its
 * token (`POST /channels/{id}/messages`) and taking answers over the Gateway (loop.ts), so the broker needs no
 * public URL. A question goes out with one button per choice (`custom_id` a handle from store/chat-store.ts,
 * never the nonce or the digest), or one "Answer…" button that opens a modal for a text question. Text from agents
 * has its controls made visible, then its markdown escaped; mentions are not parsed.
 */
export function discordAppAdapterWith(chat: ChatQuestions | undefined): ProviderAdapter {
  return {
    kind: "discord_app",
    secrets: { required: ["botToken"], optional: [] },
    parseSettings(raw) {
      const settings = chatSettings(raw, "discord_app", ["channelId", "allowedUserIds", "apiBaseUrl", "gatewayUrl"]);
      if (typeof settings.channelId !== "string" || !SNOWFLAKE.test(settings.channelId)) {
        throw invalid('channelId is required: a channel id as a string ("123456789012345678")');
      }
      const parsed: Record<string, unknown> = {
        channelId: settings.channelId,
        allowedUserIds: allowedUserIds(
          settings.allowedUserIds,
          SNOWFLAKE,
          "allowedUserIds is required: a list of 1-100 Discord user ids (strings) that may answer",
        ),
        apiBaseUrl: apiBaseUrl(settings.apiBaseUrl, DISCORD_API_BASE_URL),
      };
      if (settings.gatewayUrl !== undefined) parsed.gatewayUrl = gatewayUrl(settings.gatewayUrl);
      return parsed;
    },
    async send(payload, settings, secrets, context): Promise<DeliveryResult> {
      const token = secrets.botToken ?? "";
      if (!BOT_TOKEN.test(token)) return { ok: false, retryable: false, code: "provider_secret_invalid" };
      const question = chat && !payload.test ? payload.interaction : undefined;
      const account = discordAccount(token);
      let body: string;
      let components: Record<string, unknown>[] = [];
      let code = "";
      if (question && chat) {
        body = questionBody(payload, question, CONTENT_MAX, "Answer with the button below.");
        components = buttons(question, chat.store.addHandles.bind(chat.store), account, chat.now());
        code = codeBlock(question.context, CONTENT_MAX - discordText(body).length - 1);
      } else {
        body = notificationText(payload);
      }
      const reply = await discordApi<{ id?: unknown; channel_id?: unknown }>(
        settings.apiBaseUrl as string,
        token,
        "POST",
        `channels/${settings.channelId as string}/messages`,
        { content: `${discordText(body)}${code}`, components, allowed_mentions: NO_MENTIONS },
        context.signal,
      );
      const recorded = question && chat ? { chat, row: { account, interactionId: question.id, body } } : undefined;
      return posted(
        reply,
        recorded,
        (result) => ({ conversation: result?.channel_id, message: result?.id }),
        "discord_bad_reply",
      );
    },
  };
}

type AddHandles = ChatQuestions["store"]["addHandles"];

/** Action rows (type 1) of buttons (type 2): one a choice, or the text question's "Answer…". */
function buttons(
  question: NonNullable<OutboundPayload["interaction"]>,
  addHandles: AddHandles,
  account: string,
  now: number,
): Record<string, unknown>[] {
  const choices = question.kind === "text" ? [] : question.choices.slice(0, BUTTONS_MAX);
  const handles = addHandles(
    account,
    question.id,
    question.kind === "text" ? [null] : choices.map((choice) => choice.id),
    now,
  );
  const list =
    question.kind === "text"
      ? [{ type: 2, style: 1, label: TEXT_BUTTON_LABEL, custom_id: handles[0] }]
      : choices.map((choice, index) => ({
          type: 2,
          // Permission answers in their colours: allow green, deny red; other choices grey.
          style: choice.id === "allow" ? 3 : choice.id === "deny" ? 4 : 2,
          label: truncate(readableText(choice.label), LABEL_MAX),
          custom_id: handles[index],
        }));
  const rows: Record<string, unknown>[] = [];
  for (let index = 0; index < list.length; index += 5) rows.push({ type: 1, components: list.slice(index, index + 5) });
  return rows;
}

/** `gatewayUrl`: a `wss://` (or, beside a loopback apiBaseUrl, a loopback `ws://`) URL without user info. */
function gatewayUrl(value: unknown): string {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw invalid("gatewayUrl must be a wss:// URL");
  }
  if (typeof value !== "string" || (url.protocol !== "wss:" && url.protocol !== "ws:")) {
    throw invalid("gatewayUrl must be a wss:// URL");
  }
  if (url.username || url.password) throw invalid("gatewayUrl must not carry user info");
  return url.toString();
}
