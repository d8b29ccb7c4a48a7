import { describe, expect, it } from "vitest";
import { serveSpec, systemdUnit } from "../../src/service/service-files.js";

describe("the service's serve command gives the broker's V8 flag from the start (no re-exec)", () => {
  it("node and the checkout's CLI: the flag goes on node's command line, the environment is the user's", () => {
    const spec = serveSpec(["/opt/node/bin/node", "/src/notify/packages/broker/dist/cli/main.js"], {
      NOTIFY_PORT: "47999",
    });
    expect(spec).toEqual({
      argv: ["/opt/node/bin/node", "--max-semi-space-size=4", "/src/notify/packages/broker/dist/cli/main.js", "serve"],
      environment: { NOTIFY_PORT: "47999" },
    });
  });

  it("the installed notify (a script): the flag goes in NODE_OPTIONS, which serve reads before re-executing", () => {
    const spec = serveSpec(["/usr/local/bin/notify"], {});
    expect(spec).toEqual({
      argv: ["/usr/local/bin/notify", "serve"],
      environment: { NODE_OPTIONS: "--max-semi-space-size=4" },
    });
    expect(systemdUnit(spec)).toContain("Environment=NODE_OPTIONS=--max-semi-space-size=4\n");
  });
});
