import { afterAll, beforeAll, expect, it } from "vitest";
import { type CliBroker, runCli, startCliBroker } from "./cli-harness.js";

let cli: CliBroker;
beforeAll(async () => {
  // docs/api.md, "Limits": `rateLimitPerSecond` from config.json, one counter per token, fixed one-second window.
  cli = await startCliBroker({ rateLimitPerSecond: 1 });
});
afterAll(async () => {
  await cli?.close();
});

it("send prints the 429 status and message and exits 1", async () => {
  // docs/desktop.md, "Local presentation rules", rule 9: a 429 from send prints the status and message and exits 1. A
  // background loop keeps every window spent, so the CLI's POST lands in a full window whenever it arrives.
  let filling = true;
  const filler = (async () => {
    while (filling) {
      await cli.api("POST", "/v1/notifications", { title: "filler", message: "m" });
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  try {
    const results = await Promise.all([1, 2, 3].map(() => runCli(["send", "limited", "m", ...cli.target])));
    const limited = results.filter((result) => result.code !== 0);
    expect(limited.length).toBeGreaterThan(0);
    for (const result of limited) {
      expect(result).toMatchObject({ code: 1, stdout: "", stderr: "notify: 429 rate limit exceeded\n" });
    }
  } finally {
    filling = false;
    await filler;
  }
});
