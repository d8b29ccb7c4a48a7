// Issue 21, the route fuzz extended to hostile names: installation and device names come from whoever holds the
// enrollment token or a pairing code, and reach an operator's terminal (`notify-relay installations|devices`) and
// the broker's device list. With C0/C1 controls, DEL, escape sequences and bidi controls anywhere in them: never a
// 5xx, a 201 stores the name exactly as sent (the routes give it back byte for byte), a 400 (over 100 units, or a NUL)
// stores nothing, and the terminal form shows no control or bidi character.
import { terminalCell } from "@notify/contracts/text";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { ENROLLMENT_TOKEN, RelayHarness, x25519Jwk } from "./helpers.js";

const HOSTILE = [
  "\u0000",
  "\u0007",
  "\u001b[2J",
  "\u001b]0;title\u0007",
  "\r\n",
  "\u007f",
  "\u009b31m",
  "\u202e",
  "\u2066",
  "\u200f",
  "\u061c",
  "exe.txt",
  "a",
  "é",
  "🙂",
  " ",
];
/** Names built from hostile pieces, 1-100 UTF-16 units or just past it. */
const hostileName = fc
  .array(fc.constantFrom(...HOSTILE), { minLength: 1, maxLength: 40 })
  .map((pieces) => pieces.join(""))
  .filter((name) => name.length <= 104);

/** 1-100 UTF-16 units and no NUL (PostgreSQL text cannot hold one, so both backends refuse it alike). */
const acceptable = (name: string): boolean => name.length <= 100 && !name.includes("\u0000");

// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe("hostile installation and device names (issue 21, items 9 and 13)", () => {
  const relay = RelayHarness.sqlite();
  afterAll(() => relay.dir.remove());

  it("are stored exactly or refused with 400, never a 5xx, and print as one safe terminal line", async () => {
    const installation = await relay.enroll("desk");
    await fc.assert(
      fc.asyncProperty(hostileName, hostileName, async (installationName, deviceName) => {
        const enrolled = await relay.request({
          url: "/v1/installations",
          headers: { authorization: `Bearer ${ENROLLMENT_TOKEN}` },
          body: { name: installationName },
        });
        expect(enrolled.status).toBeLessThan(500);
        expect([201, 400]).toContain(enrolled.status);
        expect(enrolled.status === 201).toBe(acceptable(installationName));

        const { code } = await relay.pairCode(installation);
        const claimed = await relay.request({
          url: "/v1/pairings/claim",
          body: { code, device_name: deviceName, public_key: x25519Jwk() },
        });
        expect([201, 400]).toContain(claimed.status);
        expect(claimed.status === 201).toBe(acceptable(deviceName));
        if (claimed.status === 201) {
          const device = await relay.request({
            url: "/v1/device",
            headers: { authorization: `Bearer ${claimed.json().token}` },
          });
          expect(device.json().device_name).toBe(deviceName);
        }
        for (const name of [installationName, deviceName]) {
          const cell = terminalCell(name);
          expect(cell).not.toMatch(UNSAFE);
          expect(cell.split("\n")).toHaveLength(1);
        }
      }),
      { numRuns: 60 },
    );
    const listed = await relay.request({
      url: "/v1/devices",
      headers: { authorization: `Bearer ${installation.token}` },
    });
    expect(listed.status).toBe(200);
  });
});
