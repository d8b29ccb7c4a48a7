import type { TurnContext } from "@notify/contracts/item-context";
import { type ElementFactory, renderMarkdown, renderTurn } from "@notify/contracts/markdown";
import { createElement, type ReactElement, type ReactNode, useEffect, useMemo, useState } from "react";
import { api } from "./api/client.js";

const h: ElementFactory<ReactElement> = (type, props, ...children) =>
  createElement(type, props, ...(children as ReactNode[]));

/**
 * An agent's last message (a follow-up's prompt) as safe Markdown: elements built from tokens, no HTML, no images,
 * links as text, bidi controls shown (@notify/contracts/markdown, shared with the phone).
 */
export function AgentMarkdown({ text }: { text: string }) {
  return useMemo(() => renderMarkdown(text, h), [text]);
}

/**
 * A follow-up's turn (docs/hooks.md, "Follow-ups"): how long it took and the messages before the agent's last one
 * behind "Show more", read from GET /ui/api/items/:id/context. A question without one (404) shows nothing.
 */
export function TurnDetails({ interactionId, agent }: { interactionId: string; agent: string }) {
  const [context, setContext] = useState<TurnContext | undefined>(undefined);
  useEffect(() => {
    let live = true;
    api.context(interactionId).then(
      (loaded) => {
        if (live && loaded.kind === "turn") setContext(loaded);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [interactionId]);
  return useMemo(() => (context === undefined ? null : renderTurn(context, agent, h)), [context, agent]);
}
