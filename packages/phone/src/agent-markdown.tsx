import type { TurnContext } from "@notify/contracts/item-context";
import { type ElementFactory, renderMarkdown, renderTurn } from "@notify/contracts/markdown";
import { createElement, type ReactElement, type ReactNode, useMemo } from "react";

const h: ElementFactory<ReactElement> = (type, props, ...children) =>
  createElement(type, props, ...(children as ReactNode[]));

/**
 * An agent's last message (a follow-up's prompt) as safe Markdown: elements built from tokens, no HTML, no images,
 * links as text, bidi controls shown (@notify/contracts/markdown, shared with the web page).
 */
export function AgentMarkdown({ text }: { text: string }) {
  return useMemo(() => renderMarkdown(text, h), [text]);
}

/**
 * A follow-up's turn (docs/hooks.md, "Follow-ups"), sealed in its envelope: how long it took and the messages before
 * the agent's last one behind "Show more".
 */
export function TurnDetails({ context, agent }: { context: TurnContext; agent: string | null }) {
  return useMemo(() => renderTurn(context, agent, h), [context, agent]);
}
