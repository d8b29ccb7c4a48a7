import { isLoopbackHost } from "@notify/contracts/guards";

/**
 * A WebSocket URL a chat app's API handed out (Slack's `apps.connections.open`, Discord's `GET /gateway/bot` and
 * its `resume_gateway_url`), if the broker may connect to it: `wss://` only. A `ws://` URL is taken only on
 * loopback, and only when the provider's own `apiBaseUrl` is a loopback URL: the loopback chat apps of the tests
 * (or a local one), where nothing crosses the network in clear. Anything else is `badReply`.
 */
export function secureSocketUrl(
  value: string,
  apiBaseUrl: string,
  badReply: string,
): { url: string } | { refused: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { refused: badReply };
  }
  if (url.protocol === "wss:") return { url: url.toString() };
  if (url.protocol !== "ws:") return { refused: badReply };
  return isLoopbackHost(url.host) && isLoopbackHost(new URL(apiBaseUrl).host)
    ? { url: url.toString() }
    : { refused: "socket_url_insecure" };
}
