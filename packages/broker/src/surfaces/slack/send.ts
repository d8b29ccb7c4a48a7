import type { ItemContext } from "@notify/contracts/item-context";
import { invalid } from "../../domain/errors.js";
import { readableText } from "../../outbox/providers/readable-text.js";
import { truncate } from "../../outbox/providers/text-limits.js";
import type { DeliveryResult, OutboundPayload, ProviderAdapter } from "../../outbox/types.js";
import { allowedUserIds, apiBaseUrl, chatSettings } from "../chat-settings.js";
import { contextBlock, notificationText, questionBody } from "../question-text.js";
import { type ChatQuestions, posted, TEXT_BUTTON_LABEL } from "../questions.js";
import { BOT_TOKEN, SLACK_API_BASE_URL, slackAccount, slackApi } from "./api.js";

/** A section's text is at most 3000 characters, a button's label 75 (https://api.slack.com/reference/block-kit). */
const SECTION_MAX = 3000;
const BUTTON_MAX = 75;

export { TEXT_BUTTON_LABEL };

/** mrkdwn escaping (https://api.slack.com/reference/surfaces/formatting#escaping). */
export function escapeMrkdwn(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/**
 * The blocks of a posted message: its text as a section (controls made visible, then escaped), then (while open)
 * the buttons or the outcome.
 */
export function messageBlocks(
  body: string,
  tail: Record<string, unknown> | undefined,
  context?: ItemContext,
): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [
    { type: "section", text: { type: "mrkdwn", text: escapeMrkdwn(truncate(readableText(body), SECTION_MAX)) } },
  ];
  // What the question asks about, as a code block of its own (escaped, so it can be shorter than asked for).
  for (let max = SECTION_MAX - 8; max >= 80; max -= 200) {
    const block = contextBlock(context, max);
    if (block === undefined) break;
    const code = `\`\`\`${escapeMrkdwn(block)}\`\`\``;
    if (code.length <= SECTION_MAX) {
      blocks.push({ type: "section", text: { type: "mrkdwn", text: code } });
      break;
    }
  }
  if (tail) blocks.push(tail);
  return blocks;
}

/**
 * The `slack_app` provider kind (issue 25): a Slack app of its own, posting with its bot token (`chat.postMessage`
 * to `channel`) and taking answers over Socket Mode with its app-level token (chat/slack/socket.ts), so the broker
 * needs no public URL. A question goes out with one Block Kit button per choice, or an "Answer…" button that opens
 * a modal for a text question (a reply in the message's thread answers too). Buttons carry a handle
 * (store/chat-store.ts), never the nonce or the digest. Text from agents has its controls made visible
 * (readableText) before mrkdwn escaping.
 */
export const slackAppAdapter: ProviderAdapter = slackAppAdapterWith(undefined);

export function slackAppAdapterWith(chat: ChatQuestions | undefined): ProviderAdapter {
  return {
    kind: "slack_app",
    secrets: { required: ["appToken", "botToken"], optional: [] },
    parseSettings(raw) {
      const settings = chatSettings(raw, "slack_app", ["channel", "allowedUserIds", "apiBaseUrl"]);
      if (typeof settings.channel !== "string" || !/^(#[a-z0-9_-]{1,80}|[CGD][A-Z0-9]{2,30})$/.test(settings.channel)) {
        throw invalid("channel is required: a channel id (C0123ABCD) or #name");
      }
      return {
        channel: settings.channel,
        allowedUserIds: allowedUserIds(
          settings.allowedUserIds,
          /^[UW][A-Z0-9]{2,30}$/,
          "allowedUserIds is required: a list of 1-100 Slack user ids (U0123ABCD) that may answer",
        ),
        apiBaseUrl: apiBaseUrl(settings.apiBaseUrl, SLACK_API_BASE_URL),
      };
    },
    async send(payload, settings, secrets, context): Promise<DeliveryResult> {
      const token = secrets.botToken ?? "";
      if (!BOT_TOKEN.test(token)) return { ok: false, retryable: false, code: "provider_secret_invalid" };
      const question = chat && !payload.test ? payload.interaction : undefined;
      let body: string;
      let tail: Record<string, unknown> | undefined;
      let handles: string[] = [];
      if (question && chat) {
        body = questionBody(payload, question, SECTION_MAX, "Answer with the button below, or reply in this thread.");
        const account = slackAccount(token);
        if (question.kind === "text") {
          handles = chat.store.addHandles(account, question.id, [null], chat.now());
          tail = {
            type: "actions",
            block_id: "notify_answer",
            elements: [
              {
                type: "button",
                action_id: "notify_text",
                style: "primary",
                text: { type: "plain_text", text: TEXT_BUTTON_LABEL },
                value: handles[0],
              },
            ],
          };
        } else {
          handles = chat.store.addHandles(
            account,
            question.id,
            question.choices.map((choice) => choice.id),
            chat.now(),
          );
          tail = {
            type: "actions",
            block_id: "notify_answer",
            elements: question.choices.slice(0, 25).map((choice, index) => ({
              type: "button",
              action_id: `notify_choice_${index}`,
              text: { type: "plain_text", text: truncate(readableText(choice.label), BUTTON_MAX) },
              value: handles[index],
            })),
          };
        }
      } else {
        body = readableText(notificationText(payload));
      }
      const reply = await slackApi<{ channel?: string; ts?: string }>(
        settings.apiBaseUrl as string,
        token,
        "chat.postMessage",
        {
          channel: settings.channel,
          text: escapeMrkdwn(truncate(body, SECTION_MAX)),
          blocks: messageBlocks(body, tail, question?.context),
          unfurl_links: false,
          unfurl_media: false,
        },
        context.signal,
      );
      const recorded =
        question && chat
          ? { chat, row: { account: slackAccount(token), interactionId: question.id, body } }
          : undefined;
      return posted(
        reply,
        recorded,
        (result) => ({ conversation: result.channel, message: result.ts }),
        "slack_bad_reply",
      );
    },
  };
}

export type { OutboundPayload };
