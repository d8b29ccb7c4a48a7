import { terminalText } from "@notify/contracts/text";
import { type ClientOptions, createClient, printJson } from "../../client/client.js";
import type { RouteTestResult } from "../../outbox/route-test.js";
import { ExitError } from "../exit-error.js";

export interface TestRoutesOptions extends ClientOptions {
  route?: string | undefined;
  json?: boolean | undefined;
}

/**
 * `notify test [ROUTE] [--json]` (docs/cli.md; issue 37, item 5): a test notification through every enabled route, or
 * the one named, and each route's hops with their time; a failed hop says its cause and the fix. One line per hop on
 * stdout (`route kind hop ok|fail ms detail`, the fix indented below a failure); `--json` prints `{routes: [...]}`.
 * Exit 1 when any route fails.
 */
export async function testRoutes(options: TestRoutesOptions): Promise<void> {
  const client = createClient(options);
  process.stderr.write(`notify: testing ${options.route !== undefined ? "the route" : "every enabled route"}…\n`);
  const { routes } = await client.request<{ routes: RouteTestResult[] }>("POST", "/ui/api/outbound/test", {
    ui: true,
    body: options.route !== undefined ? { route: options.route } : {},
    timeoutMs: 60_000,
  });
  if (options.json) printJson({ routes });
  else if (routes.length === 0) process.stderr.write("notify: no enabled routes\n");
  else {
    for (const route of routes) {
      for (const hop of route.hops) {
        const name = terminalText(route.route).padEnd(16);
        process.stdout.write(
          `${name} ${route.kind.padEnd(11)} ${hop.hop.padEnd(8)} ${hop.status.padEnd(4)} ${`${hop.ms} ms`.padStart(8)}  ${terminalText(hop.detail)}\n`,
        );
        if (hop.fix !== undefined) process.stdout.write(`${" ".repeat(16)}   fix: ${terminalText(hop.fix)}\n`);
      }
    }
  }
  const failed = routes.filter((route) => route.status === "fail").length;
  if (failed > 0)
    throw new ExitError(1, `${failed} of ${routes.length} ${routes.length === 1 ? "route" : "routes"} failed`);
}
