import type { OutboxStatus } from "@notify/contracts/enums";
import type { OutboundProvider } from "@notify/contracts/ui";
import type { BrokerClient } from "../../client/client.js";
import type { ServiceCheck } from "./service-check.js";

interface OutboxItem {
  providerId: string;
  status: OutboxStatus;
  lastCode?: string;
  updatedAt: string;
}

/** What a fixed code means to the person, for the codes a token or an unreachable API gives. */
function meaning(code: string | undefined): string {
  if (code === "provider_secret_invalid") return "its token does not have the documented shape";
  if (code === "http_401" || code === "http_403" || code === "slack_invalid_auth")
    return `the token is refused (${code})`;
  return code ?? "no code";
}

/**
 * One line over the enabled outbound providers (issue 32, item 6): each one's last delivery outcome, a chat
 * provider's answer loop state, and a token whose shape is wrong (seen as `provider_secret_invalid` on either).
 */
export async function outboundCheck(client: BrokerClient): Promise<ServiceCheck> {
  const providers = (
    await client.request<OutboundProvider[]>("GET", "/ui/api/outbound/providers", { ui: true })
  ).filter((provider) => provider.enabled);
  if (providers.length === 0) return { status: "ok", detail: "no outbound provider enabled" };
  const outbox = await client.request<{ items: OutboxItem[] }>("GET", "/ui/api/outbound/outbox?limit=500", {
    ui: true,
  });
  const lines: string[] = [];
  const fixes: string[] = [];
  let failed = false;
  for (const provider of providers) {
    const name = `${provider.name} (${provider.kind})`;
    // The outbox lists newest first.
    const last = outbox.items.find((item) => item.providerId === provider.id);
    const parts: string[] = [];
    let broken: string | undefined;
    if (provider.connection !== undefined) {
      if (provider.connection.state === "retrying") {
        broken = `answers: retrying since ${provider.connection.since}: ${meaning(provider.connection.lastCode)}`;
        parts.push(broken);
      } else parts.push(`answers: ${provider.connection.state}`);
    }
    if (last === undefined) parts.push("nothing delivered yet");
    else if (last.status === "DeadLetter" || (last.status === "Retry" && last.lastCode !== undefined)) {
      broken ??= meaning(last.lastCode);
      parts.push(`last delivery ${last.status === "Retry" ? "retrying" : "failed"}: ${meaning(last.lastCode)}`);
    } else parts.push(`last delivery ${last.status === "Delivered" ? "delivered" : "pending"}`);
    lines.push(`${name}: ${parts.join("; ")}`);
    if (broken !== undefined) {
      failed = true;
      const token = provider.connection?.lastCode ?? last?.lastCode;
      fixes.push(
        token === "provider_secret_invalid" || /refused/.test(broken)
          ? `set ${provider.name}'s token again (notify apply FILE, or the Outbound page), then notify outbound test ${provider.name}`
          : `notify outbound test ${provider.name}`,
      );
    }
  }
  if (!failed) return { status: "ok", detail: lines.join("; ") };
  return { status: "fail", detail: lines.join("; "), fix: fixes.join(" && ") };
}
