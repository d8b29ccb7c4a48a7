import { afterEach, expect, it } from "vitest";
import { envelopeFor, RelayHarness } from "./helpers.js";

let relay: ReturnType<typeof RelayHarness.sqlite>;
afterEach(async () => relay.close());

it("walks enroll, pair, envelope, answer, poll", async () => {
  relay = RelayHarness.sqlite();
  const installation = await relay.enroll("laptop");
  const device = await relay.pair(installation);
  expect(device.owner_id).toBe(installation.owner_id);
  const env = await relay.app.inject({
    method: "POST",
    url: "/v1/envelopes",
    headers: { authorization: `Bearer ${installation.token}` },
    payload: envelopeFor(installation, [device.device_id]),
  });
  expect(env.statusCode).toBe(201);
  const fetched = await relay.app.inject({
    url: "/v1/envelopes",
    headers: { authorization: `Bearer ${device.token}` },
  });
  expect(fetched.json().envelopes).toHaveLength(1);
  const body = relay.answer(device, installation);
  const posted = await relay.postAnswer(device, body);
  expect(posted.statusCode, posted.body).toBe(201);
  const again = await relay.postAnswer(device, body);
  expect(again.statusCode).toBe(409);
  expect(again.json()).toEqual({ status: "duplicate", response_id: body.response_id });
  const polled = await relay.poll(installation);
  expect(polled.statusCode).toBe(200);
  console.log(polled.body, posted.headers);
});
