import { chatSurface } from "../surface.js";
import { APP_TOKEN, BOT_TOKEN } from "./api.js";
import { slackLoop } from "./loop.js";
import { slackAppAdapterWith } from "./send.js";

/** A Slack app (issue 25): Socket Mode with the app-level token, posts and edits with the bot token. */
export const slackSurface = chatSurface({
  kind: "slack_app",
  adapter: slackAppAdapterWith,
  loop: slackLoop,
  secretShapes: {
    appToken: { valid: (value) => APP_TOKEN.test(value), expected: "xapp-…" },
    botToken: { valid: (value) => BOT_TOKEN.test(value), expected: "xoxb-…" },
  },
});
