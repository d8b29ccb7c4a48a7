import type { LoginLink } from "@notify/contracts/ui";
import { brokerTarget, type ClientOptions, createClient } from "../../client/client.js";
import { openLoginLink } from "../../presentation/browser-opener.js";
import { ExitError } from "../exit-error.js";

export interface OpenOptions extends ClientOptions {
  print?: boolean | undefined;
}

/** `notify open` made a link but no browser opened it (docs/cli.md, notify open): the link is on stdout. */
export const OPEN_NOT_OPENED_EXIT = 3;

/**
 * `notify open [--print]`: asks the running broker (with the bearer token) for a one-time login link to the web
 * UI, then opens it in the browser through a private redirect page (the token never reaches a command line), or
 * prints it with --print (docs/security.md, "The web page's session"). When no browser opens it, the link is
 * printed and the exit status says so.
 */
export async function open(options: OpenOptions): Promise<void> {
  const { dataDir } = brokerTarget(options);
  const client = createClient(options);
  const link = await client.request<LoginLink>("POST", "/ui/api/session/link", { ui: true });
  if (options.print) {
    process.stdout.write(`${link.url}\n`);
    return;
  }
  let outcome: Awaited<ReturnType<typeof openLoginLink>>;
  try {
    outcome = await openLoginLink(link.url, { dataDir });
  } catch (error) {
    // The data dir cannot take the redirect page (read-only, another user's): the link is still good.
    outcome = { opened: false, program: "the browser", problem: (error as Error).message };
  }
  if (outcome.opened) return;
  process.stdout.write(`${link.url}\n`);
  throw new ExitError(
    OPEN_NOT_OPENED_EXIT,
    `could not open a browser: ${outcome.problem ?? "unknown reason"}; open the link above yourself (it works once, for one hour)`,
  );
}
