/**
 * The answer surfaces in words (issue 34, item 1): for each place a person can answer a question away from this
 * computer, the provider kind that carries it, the `source` word its answers are recorded with, the name it goes
 * by, and for a chat app the settings its provider takes, as the web page's provider form shows them
 * (docs/outbound.md). The broker's surface registry (`packages/broker/src/surfaces/registry.ts`) pairs each entry
 * with its loop and its sender; the timeline's words, the question messages' outcome lines and the provider form
 * read these. Zod-free (subpath `@notify/contracts/ui-surfaces`), so front ends take it as it is.
 */

export interface AnswerSurfaceWords {
  /** The provider kind (`telegram`, `slack_app`...). */
  kind: string;
  /** `response.source` of the answers it records. */
  source: string;
  /** Its name in a sentence: "in Telegram", "Answered in Slack at 12:01". */
  label: string;
  /** Where an answer from it was given, after "Answered": "in Telegram", "on the phone". */
  where: string;
  /** The provider's settings for the web page's form: an example and what the fields mean; absent for the relay. */
  settings?: { example: string; hint: string };
}

export const ANSWER_SURFACES: readonly AnswerSurfaceWords[] = [
  { kind: "relay", source: "relay", label: "the phone", where: "on the phone" },
  {
    kind: "telegram",
    source: "telegram",
    label: "Telegram",
    where: "in Telegram",
    settings: {
      example: '{"chatId": 123456789, "answers": true, "allowedUserIds": ["123456789"]}',
      hint: "answers: true adds buttons to questions; only allowedUserIds may answer, in chatId. Optional: apiBaseUrl.",
    },
  },
  {
    kind: "slack_app",
    source: "slack",
    label: "Slack",
    where: "in Slack",
    settings: {
      example: '{"channel": "C0123ABCD", "allowedUserIds": ["U0123ABCD"]}',
      hint: "Socket Mode app: appToken (xapp-) and botToken (xoxb-) below; only allowedUserIds may answer. Optional: apiBaseUrl.",
    },
  },
  {
    kind: "discord_app",
    source: "discord",
    label: "Discord",
    where: "in Discord",
    settings: {
      example: '{"channelId": "123456789012345678", "allowedUserIds": ["123456789012345678"]}',
      hint: "A bot over the Gateway: botToken below; only allowedUserIds may answer, in channelId. Optional: apiBaseUrl, gatewayUrl.",
    },
  },
];

/** The surface a provider kind is, if it is one. */
export function answerSurfaceOfKind(kind: string): AnswerSurfaceWords | undefined {
  return ANSWER_SURFACES.find((surface) => surface.kind === kind);
}

/** The surface whose answers carry `source`, if any (`phone` is the relay's too: the phone app's own word). */
export function answerSurfaceOfSource(source: string | undefined): AnswerSurfaceWords | undefined {
  if (source === "phone") return answerSurfaceOfSource("relay");
  return ANSWER_SURFACES.find((surface) => surface.source === source);
}
