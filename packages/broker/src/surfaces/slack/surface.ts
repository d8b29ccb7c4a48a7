import { type AnswerSurface, wordsOf } from "../surface.js";
import { APP_TOKEN, BOT_TOKEN } from "./api.js";
import { slackLoop } from "./loop.js";
import { slackAppAdapterWith } from "./send.js";

/** A Slack app (issue 25): Socket Mode with the app-level token, posts and edits with the bot token. */
export const slackSurface: AnswerSurface = {
  kind: "slack_app",
  words: wordsOf("slack_app"),
  adapter: slackAppAdapterWith,
  answers: () => true,
  loop: slackLoop,
  listsConnection: true,
  secretShapes: {
    appToken: { valid: (value) => APP_TOKEN.test(value), expected: "xapp-…" },
    botToken: { valid: (value) => BOT_TOKEN.test(value), expected: "xoxb-…" },
  },
};
