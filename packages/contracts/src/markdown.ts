/**
 * An agent's last message, rendered as safe Markdown for the web page and the phone (docs/hooks.md, "Follow-ups").
 * Zod-free, DOM-free and React-free: the caller passes its element factory (React's `createElement`), and this module
 * builds elements from marked's tokens, never HTML. So:
 *
 * - raw HTML (`<script>`, `<b>`, a comment) is shown as the text it is;
 * - an image is never loaded: its alt text is shown, `[image: alt]`;
 * - a link is never followed or made clickable: its text is shown, then its URL as text;
 * - every bidi control is shown as a marked `<U+202E>` token, in code too (`bidiParts`, as `AgentText` does);
 * - only the elements listed in MARKDOWN_ELEMENTS are ever made, with the props set here (never one from the input).
 */
import { Lexer, type Token, type Tokens } from "marked";
import { AGENT_DISPLAY_NAMES } from "./enums.js";
import type { TurnContext } from "./item-context.js";
import { bidiParts } from "./text.js";
import { durationWords } from "./ui/routing-summary.js";

/** A child of an element: another element or a run of text (the factory escapes text, as React does). */
export type MarkdownChild<N> = N | string;
/** `createElement`'s shape: a tag, its props, its children. */
export type ElementFactory<N> = (
  type: string,
  props: Record<string, string | number | undefined> | null,
  ...children: MarkdownChild<N>[]
) => N;

/** Every tag the renderer can make. No `a`, no `img`, no `input`, nothing that loads or runs. */
export const MARKDOWN_ELEMENTS = [
  "div",
  "p",
  "pre",
  "code",
  "ul",
  "ol",
  "li",
  "blockquote",
  "strong",
  "em",
  "del",
  "br",
  "hr",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "span",
  "mark",
] as const;

/** The marker the broker's cut adds (`\n… [cut: N more characters not shown]`, packages/broker/src/hooks/prompt.ts). */
const CUT_MARKER = /\n?… \[cut: (\d+) more characters not shown\]$/;

/** The message without the broker's cut marker, and how many characters the cut left out (0: none). */
export function splitCut(text: string): { body: string; cut: number } {
  const match = CUT_MARKER.exec(text);
  if (!match) return { body: text, cut: 0 };
  return { body: text.slice(0, match.index), cut: Number(match[1]) };
}

// Which questions are follow-ups is the contract's (enums.ts), read by the broker's timeline too.
export { isFollowUp } from "./enums.js";

/** The agent's name as a person reads it ("Claude Code" for `claude-code`); an unknown id as it is. */
export function agentDisplayName(agent: string | null | undefined): string {
  if (agent === null || agent === undefined || agent === "") return "the agent";
  return (AGENT_DISPLAY_NAMES as Readonly<Record<string, string>>)[agent] ?? agent;
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00A0",
  copy: "\u00A9",
  reg: "\u00AE",
  trade: "\u2122",
  hellip: "\u2026",
  mdash: "\u2014",
  ndash: "\u2013",
  times: "\u00D7",
  middot: "\u00B7",
  rarr: "\u2192",
  larr: "\u2190",
};

/**
 * Entity references in Markdown text stand for characters (`&amp;` is `&`); marked leaves them for an HTML parser to
 * read, and no HTML parser runs here. One pass, so `&amp;lt;` is `&lt;`, never `<`. A code point that is not a
 * character (0, a surrogate, past U+10FFFF) becomes U+FFFD, as CommonMark says; unknown names stay as written.
 */
function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,8});/g, (whole, body: string) => {
    if (body.startsWith("#")) {
      const code = body[1] === "x" || body[1] === "X" ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
      const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
      return valid ? String.fromCodePoint(code) : "\uFFFD";
    }
    return NAMED_ENTITIES[body] ?? whole;
  });
}

/** Nesting deeper than this (`>>>>…`, lists in lists) is shown as its source text. */
const MAX_DEPTH = 16;

/**
 * Renders `source` (an agent's last message) with `h`, as one `div.markdown`. The broker's cut marker at the end is
 * taken off before parsing (a cut inside a code block would otherwise read as code) and said below the message.
 */
export function renderMarkdown<N>(source: string, h: ElementFactory<N>): N {
  const { body, cut } = splitCut(source);
  let tokens: Token[];
  try {
    tokens = new Lexer({ gfm: true, breaks: false }).lex(body);
  } catch {
    tokens = [{ type: "paragraph", raw: body, text: body, tokens: [{ type: "text", raw: body, text: body }] }];
  }

  /** Text with each bidi control as a visible token. */
  const text = (value: string): MarkdownChild<N>[] =>
    bidiParts(value).map((part) =>
      "control" in part
        ? h(
            "mark",
            { className: "bidi-control", title: `Hidden ${part.name} (${part.token.slice(1, -1)})` },
            part.token,
          )
        : part.text,
    );

  const inline = (list: readonly Token[] | undefined, depth: number): MarkdownChild<N>[] =>
    (list ?? []).flatMap((token) => inlineToken(token, depth));

  const inlineToken = (token: Token, depth: number): MarkdownChild<N>[] => {
    if (depth > MAX_DEPTH) return text(token.raw);
    switch (token.type) {
      case "text":
      case "escape": {
        const t = token as Tokens.Text;
        return t.tokens && t.tokens.length > 0 ? inline(t.tokens, depth + 1) : text(decodeEntities(t.text));
      }
      case "strong":
        return [h("strong", null, ...inline((token as Tokens.Strong).tokens, depth + 1))];
      case "em":
        return [h("em", null, ...inline((token as Tokens.Em).tokens, depth + 1))];
      case "del":
        return [h("del", null, ...inline((token as Tokens.Del).tokens, depth + 1))];
      case "codespan":
        return [h("code", { className: "md-code-inline", dir: "ltr" }, ...text((token as Tokens.Codespan).text))];
      case "br":
        return [h("br", null)];
      case "html":
        // Raw HTML is text here: shown, never parsed.
        return text((token as Tokens.HTML).text);
      case "link": {
        const link = token as Tokens.Link;
        const label = inline(link.tokens, depth + 1);
        const href = decodeEntities(link.href);
        const shown = h("span", { className: "md-link" }, ...label);
        if (link.text === link.href || link.text === href) return [shown];
        return [
          shown,
          " ",
          h("span", { className: "md-url", title: "Links are not opened from here" }, "(", ...text(href), ")"),
        ];
      }
      case "image": {
        const image = token as Tokens.Image;
        const alt = decodeEntities(image.text).trim();
        return [
          h(
            "span",
            { className: "md-image", title: "Images are not loaded here" },
            ...(alt === "" ? ["[image]"] : ["[image: ", ...text(alt), "]"]),
          ),
        ];
      }
      case "checkbox":
        return [h("span", { className: "md-task" }, (token as Tokens.Checkbox).checked ? "[x] " : "[ ] ")];
      default: {
        // A token this renderer does not know: its children, else its source as text. Nothing is dropped.
        const generic = token as Tokens.Generic;
        return generic.tokens ? inline(generic.tokens, depth + 1) : text(generic.raw);
      }
    }
  };

  const blocks = (list: readonly Token[], depth: number): N[] => list.flatMap((token) => block(token, depth));

  const block = (token: Token, depth: number): N[] => {
    if (depth > MAX_DEPTH) return [h("p", { className: "md-raw" }, ...text(token.raw))];
    switch (token.type) {
      case "space":
      case "def":
        return [];
      case "paragraph":
        return [h("p", { dir: "auto" }, ...inline((token as Tokens.Paragraph).tokens, depth + 1))];
      case "heading": {
        const heading = token as Tokens.Heading;
        return [
          h(
            "p",
            { className: `md-heading md-h${Math.min(heading.depth, 6)}`, dir: "auto" },
            h("strong", null, ...inline(heading.tokens, depth + 1)),
          ),
        ];
      }
      case "code": {
        const code = token as Tokens.Code;
        const props: Record<string, string | number | undefined> = { className: "md-code", dir: "ltr", tabIndex: 0 };
        if (code.lang) props["data-lang"] = code.lang.slice(0, 40);
        return [h("pre", props, h("code", null, ...text(code.text)))];
      }
      case "blockquote":
        return [h("blockquote", null, ...blocks((token as Tokens.Blockquote).tokens, depth + 1))];
      case "list": {
        const list = token as Tokens.List;
        const items = list.items.map((item) =>
          h("li", { dir: "auto" }, ...item.tokens.flatMap((child) => listChild(child, depth + 1))),
        );
        if (!list.ordered) return [h("ul", null, ...items)];
        const start = typeof list.start === "number" && list.start !== 1 ? list.start : undefined;
        return [h("ol", start === undefined ? null : { start }, ...items)];
      }
      case "hr":
        return [h("hr", null)];
      case "html":
        return [h("p", { className: "md-raw", dir: "auto" }, ...text((token as Tokens.HTML).text))];
      case "table": {
        const table = token as Tokens.Table;
        const cell = (tag: string, entry: Tokens.TableCell) =>
          h(tag, { dir: "auto" }, ...inline(entry.tokens, depth + 1));
        return [
          h(
            "div",
            { className: "md-table" },
            h(
              "table",
              null,
              h("thead", null, h("tr", null, ...table.header.map((entry) => cell("th", entry)))),
              h("tbody", null, ...table.rows.map((row) => h("tr", null, ...row.map((entry) => cell("td", entry))))),
            ),
          ),
        ];
      }
      case "text": {
        const t = token as Tokens.Text;
        return [h("p", { dir: "auto" }, ...(t.tokens ? inline(t.tokens, depth + 1) : text(decodeEntities(t.text))))];
      }
      default: {
        const generic = token as Tokens.Generic;
        return [h("p", { dir: "auto" }, ...(generic.tokens ? inline(generic.tokens, depth + 1) : text(generic.raw)))];
      }
    }
  };

  /** A list item's children: a tight item's text and checkbox stay inline, anything else is a block. */
  const listChild = (token: Token, depth: number): MarkdownChild<N>[] =>
    token.type === "text" || token.type === "checkbox" ? inlineToken(token, depth) : block(token, depth);

  const children: N[] = blocks(tokens, 0);
  if (cut > 0) {
    children.push(h("p", { className: "md-cut" }, `… ${cut} more characters not shown (cut by Notify)`));
  }
  return h("div", { className: "markdown" }, ...children);
}

/** How long a turn took, in words (`2 min 5 s`); under a second reads as `under 1 s`. */
export function turnDuration(ms: number): string {
  return ms < 1000 ? "under 1 s" : durationWords(Math.round(ms / 1000));
}

/**
 * A finished turn's context below the agent's last message (docs/hooks.md, "Follow-ups"), the same on the web page
 * and the phone: how long the turn took, then the messages before the last one behind a "Show more" (a native
 * `<details>`: keyboard and screen-reader friendly with no script), each as safe Markdown under who said it.
 */
export function renderTurn<N>(context: TurnContext, agent: string | null | undefined, h: ElementFactory<N>): N {
  const parts: N[] = [];
  if (context.duration_ms !== undefined) {
    parts.push(h("p", { className: "turn-took" }, `The turn took ${turnDuration(context.duration_ms)}`));
  }
  const count = context.messages.length;
  if (count > 0) {
    const agentName = agentDisplayName(agent);
    const items = context.messages.map((message, index) =>
      h(
        "li",
        { key: index, className: `turn-message turn-${message.role}` },
        h("p", { className: "turn-role" }, message.role === "user" ? "You" : agentName),
        renderMarkdown(message.text, h),
      ),
    );
    const older = context.truncated ? " (older ones not shown)" : "";
    parts.push(
      h(
        "details",
        { className: "turn-tail" },
        h("summary", null, `Show more: ${count} earlier ${count === 1 ? "message" : "messages"}${older}`),
        h("ol", { className: "turn-messages" }, ...items),
      ),
    );
  }
  return h("div", { className: "turn" }, ...parts);
}
