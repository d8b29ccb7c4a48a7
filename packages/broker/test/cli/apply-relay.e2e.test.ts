// docs/apply.md, "`relay`": `notify apply FILE [--prune]` has a `relay` section. Against a real
// notify-relay (in-process, loopback) and a real broker: the file enrolls once, a second run changes nothing (no new
// installation, so no phone is unpaired), outbound --prune leaves the relay provider and its route alone, a bad
// section changes nothing, and the enrollment token is printed nowhere and stored nowhere.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { OutboundRoute, ProviderProfile } from "../../src/outbox/types.js";
import { startRelay } from "../relay/relay-harness.js";
import { type CliBroker, secretCheckedCli, startCliBroker } from "./cli-harness.js";
import { fileDir, filesContaining } from "./outbound-helpers.js";

const ENROLLMENT = "relay-enroll-apply-4c8e1f0a9b";

let cli: CliBroker;
let files: ReturnType<typeof fileDir>;
let relay: Awaited<ReturnType<typeof startRelay>>;

beforeEach(async () => {
  cli = await startCliBroker();
  files = fileDir();
  relay = await startRelay();
});
afterEach(async () => {
  await cli?.close();
  files?.remove();
});

const { notify } = secretCheckedCli(ENROLLMENT, () => cli);

const relayFile = (url: string, extra = "") => `relay:\n  url: ${url}/\n  enrollmentToken: ${ENROLLMENT}\n${extra}`;

async function relayState() {
  const providers = (await cli.api<ProviderProfile[]>("GET", "/ui/api/outbound/providers")).body;
  const routes = (await cli.api<OutboundRoute[]>("GET", "/ui/api/outbound/routes")).body;
  return {
    provider: providers.find((provider) => provider.name === "relay"),
    route: routes.find((route) => route.name === "relay"),
    providers,
    routes,
  };
}

describe("notify apply: relay", () => {
  it("enrolls once, then leaves the installation alone", async () => {
    // The in-process relay enrolls with its own operator token; the harness sets it to ENROLLMENT_TOKEN.
    const { ENROLLMENT_TOKEN } = await import("@notify/test-kit");
    const file = files.write("relay.yaml", relayFile(relay.url).replace(ENROLLMENT, ENROLLMENT_TOKEN));
    const first = await notify("apply", file);
    expect(first.stderr).toContain("created relay relay (provider and route enabled)");
    expect(first.code).toBe(0);
    const enrolled = await relayState();
    expect(enrolled.provider).toMatchObject({ kind: "relay", enabled: true, settings: { url: relay.url } });
    expect(enrolled.route).toMatchObject({ enabled: true, providerId: enrolled.provider?.id });
    const installation = enrolled.provider?.settings.installationId;
    expect(typeof installation).toBe("string");

    const again = await notify("apply", file, "--json");
    expect(again.code).toBe(0);
    const summary = JSON.parse(again.stdout) as { counts: Record<string, number> };
    expect(summary.counts).toMatchObject({ create: 0, update: 0, unchanged: 1 });
    expect((await relayState()).provider?.settings.installationId).toBe(installation);

    // outbound with --prune and an empty provider list: the relay provider and its route stay.
    const pruning = files.write("outbound.yaml", "outbound:\n  providers: []\n  routes: []\n");
    const pruned = await notify("apply", pruning, "--prune");
    expect(pruned.code).toBe(0);
    const kept = await relayState();
    expect(kept.provider?.settings.installationId).toBe(installation);
    expect(kept.route?.enabled).toBe(true);
    // The operator's token was sent to the relay once and is kept by the broker nowhere.
    expect(filesContaining(cli.dataDir, ENROLLMENT_TOKEN)).toEqual([]);
  });

  it("refuses a bad section, and a refused enrollment, without changing anything or printing the token", async () => {
    const bad = files.write("bad.yaml", `relay:\n  url: ftp://relay\n  enrollmentToken: 5\n  colour: blue\n`);
    const refused = await notify("apply", bad);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("relay: unknown key colour");
    expect(refused.stderr).toContain("relay.url must be an http(s) URL");
    expect(refused.stderr).toContain("relay.enrollmentToken must be");
    expect(refused.stderr).toContain("nothing was changed");

    // A token the relay does not know: the enrollment fails at the relay (401), nothing is saved.
    const wrong = await notify("apply", files.write("wrong.yaml", relayFile(relay.url)));
    expect(wrong.code).toBe(1);
    const state = await relayState();
    expect(state.providers).toEqual([]);
    expect(state.routes).toEqual([]);
    expect(filesContaining(cli.dataDir, ENROLLMENT)).toEqual([]);
  });

  it("will not turn another kind of provider into a relay", async () => {
    const webhook =
      "outbound:\n  providers:\n    - name: relay\n      kind: webhook\n      settings:\n        url: http://127.0.0.1:9/hook\n";
    expect((await notify("apply", files.write("webhook.yaml", webhook))).code).toBe(0);
    const result = await notify("apply", files.write("clash.yaml", relayFile(relay.url)));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("relay.name: provider relay exists and is a webhook provider");
  });
});
