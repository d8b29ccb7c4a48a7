import { chatSurface } from "../surface.js";
import { BOT_TOKEN } from "./api.js";
import { discordLoop } from "./loop.js";
import { discordAppAdapterWith } from "./send.js";

/** A Discord application's bot (issue 34, item 2): the Gateway over a WebSocket, REST with the bot token. */
export const discordSurface = chatSurface({
  kind: "discord_app",
  adapter: discordAppAdapterWith,
  loop: discordLoop,
  secretShapes: { botToken: { valid: (value) => BOT_TOKEN.test(value), expected: "<id>.<timestamp>.<hmac>" } },
});
