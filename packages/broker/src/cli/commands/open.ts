import { spawn } from "node:child_process";
import type { LoginLink } from "@notify/contracts/ui";
import { type ClientOptions, createClient } from "../client.js";

export interface OpenOptions extends ClientOptions {
  print?: boolean | undefined;
}

/** The program that opens a URL in the desktop's browser. */
function opener(): string {
  if (process.platform === "darwin") return "open";
  if (process.platform === "win32") return "explorer";
  return "xdg-open";
}

/**
 * `notify open [--print]`: asks the running broker (with the bearer token) for a one-time login link to the web
 * UI, then opens it in the browser, or prints it with --print (docs/security.md, "The web page's session").
 */
export async function open(options: OpenOptions): Promise<void> {
  const client = createClient(options);
  const link = await client.request<LoginLink>("POST", "/ui/api/session/link", { ui: true });
  if (options.print) {
    process.stdout.write(`${link.url}\n`);
    return;
  }
  const program = opener();
  await new Promise<void>((resolve) => {
    const child = spawn(program, [link.url], { stdio: "ignore", detached: true });
    child.once("error", () => {
      // No opener on this machine (a server, a container): the link is still good.
      process.stderr.write(`notify: cannot start ${program}; open this link yourself:\n`);
      process.stdout.write(`${link.url}\n`);
      resolve();
    });
    child.once("spawn", () => {
      child.unref();
      resolve();
    });
  });
}
