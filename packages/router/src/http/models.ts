import type { ConfigSnapshot } from "../config/records.js";

/**
 * GET /router/v1/models (OpenAI-style list): every selectable `provider/model` of an enabled upstream, every
 * enabled alias by name and every enabled combo as `combo/<name>`.
 */
export function modelList(snapshot: ConfigSnapshot): { object: "list"; data: object[] } {
  const data: object[] = [];
  for (const upstream of snapshot.upstreams) {
    if (!upstream.enabled) continue;
    for (const model of upstream.models) {
      data.push({ id: `${upstream.slug}/${model}`, object: "model", created: 0, owned_by: upstream.slug });
    }
  }
  for (const route of snapshot.routes) {
    if (!route.enabled) continue;
    data.push({
      id: route.kind === "combo" ? `combo/${route.name}` : route.name,
      object: "model",
      created: 0,
      owned_by: route.kind,
    });
  }
  return { object: "list", data };
}
