import { bidiParts, showBidiControls } from "@notify/contracts/text";

/**
 * Text an agent wrote (a prompt, a command, a name), isolated from the page's direction, with every bidi control
 * shown as a marked `<U+202E>` token instead of reordering what follows it (docs/security.md, "Bidi controls").
 */
export function AgentText({ text }: { text: string }) {
  const parts = bidiParts(text);
  return (
    <bdi className="agent-text">
      {parts.map((part, index) =>
        "control" in part ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one string never move
          <mark key={index} className="bidi-control" title={`Hidden ${part.name} (${part.token.slice(1, -1)})`}>
            {part.token}
          </mark>
        ) : (
          part.text
        ),
      )}
    </bdi>
  );
}

/** The same for places that take a plain string only (an option, a title attribute, an aria-label). */
export const agentString = showBidiControls;
