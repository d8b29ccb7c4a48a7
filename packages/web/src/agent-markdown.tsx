import { type ElementFactory, renderMarkdown } from "@notify/contracts/markdown";
import { createElement, type ReactElement, type ReactNode, useMemo } from "react";

const h: ElementFactory<ReactElement> = (type, props, ...children) =>
  createElement(type, props, ...(children as ReactNode[]));

/**
 * An agent's last message (a follow-up's prompt) as safe Markdown: elements built from tokens, no HTML, no images,
 * links as text, bidi controls shown (@notify/contracts/markdown, shared with the phone).
 */
export function AgentMarkdown({ text }: { text: string }) {
  return useMemo(() => renderMarkdown(text, h), [text]);
}
