import { afterEach, beforeEach, expect, it } from "vitest";
import { DAY, HOUR, ManualClock } from "../src/domain/clock.js";
import { pruneOnce } from "../src/domain/retention.js";
import { type Enrolled, envelopeFor, type Paired, RelayHarness } from "./helpers.js";

/**
 * docs/relay.md, "Retention": relay retention, driven through the routes (a cursor acknowledges only when sent back).
 */
let relay: ReturnType<typeof RelayHarness.sqlite>;
let clock: ManualClock;
let installation: Enrolled;
let device: Paired;

beforeEach(async () => {
  clock = new ManualClock(Date.now());
  relay = RelayHarness.sqlite({ clock });
  installation = await relay.enroll();
  device = await relay.pair(installation);
});
afterEach(async () => relay.close());

const stored = () => relay.store.read((tx) => tx.answersAfter(installation.installation_id, null, 0, 100));

it("an answer whose cursor was returned but never sent back is kept until 7 days pass", async () => {
  await relay.postAnswer(device, relay.answer(device, installation));
  await relay.poll(installation);
  clock.advance(6 * DAY);
  await pruneOnce(relay.store, clock);
  expect(await stored()).toHaveLength(1);
  clock.advance(DAY + 1);
  expect((await pruneOnce(relay.store, clock)).answers).toBe(1);
  expect(await stored()).toHaveLength(0);
});

it("an acknowledged answer goes 24 hours after the cursor was sent back", async () => {
  await relay.postAnswer(device, relay.answer(device, installation));
  const page = (await relay.poll(installation)).json();
  clock.advance(2 * HOUR);
  await relay.poll(installation, page.next_cursor); // acknowledges the page
  clock.advance(DAY - 1);
  await pruneOnce(relay.store, clock);
  expect(await stored()).toHaveLength(1);
  clock.advance(2);
  await pruneOnce(relay.store, clock);
  expect(await stored()).toHaveLength(0);
});

it("an envelope goes once every recipient acknowledged it (24 hours later)", async () => {
  const tablet = await relay.pair(installation);
  await relay.postEnvelope(installation, envelopeFor(installation, [device.device_id, tablet.device_id]));
  const first = (await relay.envelopes(device)).json();
  const second = (await relay.envelopes(tablet)).json();
  await relay.envelopes(device, first.next_cursor);
  clock.advance(DAY + 1);
  expect((await pruneOnce(relay.store, clock)).envelopes).toBe(0);
  await relay.envelopes(tablet, second.next_cursor);
  clock.advance(DAY + 1);
  expect((await pruneOnce(relay.store, clock)).envelopes).toBe(1);
});

it("expired pairing codes are pruned", async () => {
  await relay.pairCode(installation);
  clock.advance(11 * 60_000);
  expect((await pruneOnce(relay.store, clock)).pairings).toBe(1);
});
