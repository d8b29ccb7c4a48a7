import { execFileSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  RELAY_CONTRACT_VERSION,
  RelayAnswerPage,
  RelayAnswerRecorded,
  RelayClaim,
  RelayDeviceInfo,
  RelayDeviceList,
  RelayEnrollment,
  RelayEnvelopeCreated,
  RelayEnvelopePage,
  RelayErrorBody,
  RelayFeedErrorBody,
  RelayPairing,
} from "@notify/contracts";
import { afterEach, expect, it } from "vitest";
import { RELAY_CONTRACT_VERSION as relayVersion } from "../src/domain/answer-check.js";
import { envelopeFor, RelayHarness } from "./helpers.js";

/** Every reply parses with the shared schemas the broker's relay client and the phone import (packages/contracts). */
let relay: ReturnType<typeof RelayHarness.sqlite> | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

it("each route's reply matches its contract schema", async () => {
  const harness = RelayHarness.sqlite();
  relay = harness;
  const installation = RelayEnrollment.parse(await harness.enroll("laptop"));
  const pairing = RelayPairing.parse(await harness.pairCode(installation));
  expect(pairing.code).toMatch(/^[0-9A-Z]{10}$/);
  const device = RelayClaim.parse(await harness.pair(installation));
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  RelayDeviceInfo.parse((await harness.request({ url: "/v1/device", headers: bearer(device.token) })).json());
  RelayDeviceList.parse((await harness.request({ url: "/v1/devices", headers: bearer(installation.token) })).json());
  RelayEnvelopeCreated.parse(
    (await harness.postEnvelope(installation, envelopeFor(installation, [device.device_id]))).json(),
  );
  RelayEnvelopePage.parse((await harness.envelopes(device)).json());
  const body = harness.answer(device, installation);
  RelayAnswerRecorded.parse((await harness.postAnswer(device, body)).json());
  RelayAnswerRecorded.parse((await harness.postAnswer(device, body)).json());
  const page = RelayAnswerPage.parse((await harness.poll(installation)).json());
  expect(page.responses).toHaveLength(1);
  RelayErrorBody.parse((await harness.postAnswer("nrd_bad", body)).json());
  RelayFeedErrorBody.parse((await harness.poll({ ...installation, token: "nri_bad" })).json());
});

it("the relay checks the contract version contracts defines", () => {
  expect(relayVersion).toBe(RELAY_CONTRACT_VERSION);
});

// The relay shares the contract's types and zod-free constants but never loads zod (docs/relay.md, "Answer
// checks"): zod would cost it about 17 MB of RSS for checks it makes in the spec's order by hand.
it("the relay's server modules load no zod", () => {
  const dist = resolve(dirname(fileURLToPath(import.meta.url)), "../dist");
  const entries = ["index.js", "cli/commands/serve.js"].map((file) => pathToFileURL(resolve(dist, file)).href);
  const script = `
    import { registerHooks } from "node:module";
    const loaded = [];
    registerHooks({ resolve: (specifier, context, next) => { const found = next(specifier, context); loaded.push(found.url); return found; } });
    for (const entry of ${JSON.stringify(entries)}) await import(entry);
    console.log(JSON.stringify({ modules: loaded.length, zod: loaded.filter((url) => /[\\/]zod[\\/]/.test(url)) }));
  `;
  const report = JSON.parse(
    execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }),
  );
  expect(report.modules).toBeGreaterThan(20);
  expect(report.zod).toEqual([]);
});
