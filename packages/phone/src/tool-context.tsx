import { renderToolContext } from "@notify/contracts/context-view";
import type { ToolContext } from "@notify/contracts/item-context";
import type { ElementFactory } from "@notify/contracts/markdown";
import { createElement, type ReactElement, type ReactNode, useMemo } from "react";

const h: ElementFactory<ReactElement> = (type, props, ...children) =>
  createElement(type, props, ...(children as ReactNode[]));

/**
 * What a question from a hook asks about (docs/hooks.md, "Approvals with context: what you see"), sealed in its
 * envelope: the diff, the command, the URL or the input, rendered by @notify/contracts/context-view (shared with the
 * web page). A part cut to fit the envelope says it is on the desktop.
 */
export function ToolContextView({ context }: { context: ToolContext }) {
  return useMemo(() => renderToolContext(context, h, { surface: "phone" }), [context]);
}
