import { type ContextSurface, renderToolContext } from "@notify/contracts/context-view";
import type { ToolContext } from "@notify/contracts/item-context";
import type { ElementFactory } from "@notify/contracts/markdown";
import { createElement, type ReactElement, type ReactNode, useEffect, useMemo, useState } from "react";
import { ApiError, api } from "./api/client.js";

const h: ElementFactory<ReactElement> = (type, props, ...children) =>
  createElement(type, props, ...(children as ReactNode[]));

/** A tool call's context, rendered by @notify/contracts/context-view (shared with the phone). */
export function ToolContextView({ context, surface = "web" }: { context: ToolContext; surface?: ContextSurface }) {
  return useMemo(() => renderToolContext(context, h, { surface }), [context, surface]);
}

type Loaded = { state: "loading" } | { state: "none" } | { state: "failed" } | { state: "shown"; context: ToolContext };

/**
 * What a question from a hook asks about (docs/hooks.md, "Approvals with context: what you see"): the diff, the
 * command, the URL or the input, read from GET /ui/api/items/:id/context. Read again when the question changes (its
 * request digest), so the page shows the context the answer is bound to. A turn (a follow-up's) is TurnDetails'.
 */
export function ToolContextDetails({ interactionId, requestDigest }: { interactionId: string; requestDigest: string }) {
  const [loaded, setLoaded] = useState<Loaded>({ state: "loading" });
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new `requestDigest` (the question changed) reads it again
  useEffect(() => {
    let live = true;
    setLoaded({ state: "loading" });
    api.context(interactionId).then(
      (context) => {
        if (live)
          setLoaded(
            context.kind === "turn" || context.kind === "form" ? { state: "none" } : { state: "shown", context },
          );
      },
      (error: unknown) => {
        if (live)
          setLoaded(error instanceof ApiError && error.status === 404 ? { state: "none" } : { state: "failed" });
      },
    );
    return () => {
      live = false;
    };
  }, [interactionId, requestDigest]);
  switch (loaded.state) {
    case "loading":
      return <p className="tool-context-status muted">Loading what it asks about…</p>;
    case "failed":
      return (
        <p className="tool-context-status error" role="alert">
          Could not load what it asks about. Reload the page before you answer.
        </p>
      );
    case "none":
      return null;
    default:
      return <ToolContextView context={loaded.context} />;
  }
}
