import { chatSurface } from "../surface.js";
import { BOT_TOKEN } from "./api.js";
import { telegramLoop } from "./loop.js";
import { telegramAdapterWith } from "./send.js";

/** Telegram (issue 25): a bot's getUpdates long poll; only a provider with `answers: true` takes answers. */
export const telegramSurface = chatSurface({
  kind: "telegram",
  adapter: telegramAdapterWith,
  answers: (profile) => profile.settings.answers === true,
  loop: telegramLoop,
  secretShapes: { botToken: { valid: (value) => BOT_TOKEN.test(value), expected: "<bot id>:<secret>" } },
});
