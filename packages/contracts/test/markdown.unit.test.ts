import { createElement, type ReactElement, type ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import {
  agentDisplayName,
  type ElementFactory,
  isFollowUp,
  MARKDOWN_ELEMENTS,
  renderMarkdown,
  splitCut,
} from "../src/markdown.js";

/** React's own factory and server renderer: the markup is what the web page and the phone put in the DOM. */
const h: ElementFactory<ReactElement> = (type, props, ...children) =>
  createElement(type, props, ...(children as ReactNode[]));
const html = (source: string): string => renderToStaticMarkup(renderMarkdown(source, h));

/** Every tag in the markup. */
const tags = (markup: string): string[] => [...markup.matchAll(/<([a-zA-Z][a-zA-Z0-9-]*)/g)].map((m) => m[1] as string);
/** Every attribute name in the markup. */
const attributes = (markup: string): string[] =>
  [...markup.matchAll(/\s([a-zA-Z-]+)="/g)].map((m) => (m[1] as string).toLowerCase());
const ALLOWED_ATTRIBUTES = ["class", "dir", "title", "tabindex", "data-lang", "start"];

const SUMMARY = `Done: the cache now expires entries **per key**, and \`npm test\` passes.

What changed:

- \`src/cache.ts\`: a \`Map\` of timers instead of one sweep
- *tests*: two new cases

\`\`\`ts
export function expire(key: string, ms: number): void {
  timers.set(key, setTimeout(() => cache.delete(key), ms));
}
\`\`\`

Shall I also update the [docs](https://example.com/docs)?`;

const HOSTILE = [
  "<script>alert(1)</script>",
  "Hi <script>alert(1)</script> there",
  '<img src="http://evil.example/x.png" onerror="alert(1)">',
  "<img src=http://evil.example/x.png>",
  "![tracking pixel](http://evil.example/p.png)",
  "![](https://evil.example/p.png)",
  "[click me](javascript:alert(1))",
  '<a href="javascript:alert(1)">x</a>',
  "<iframe src=http://evil.example></iframe>",
  '<div onclick="alert(1)" style="position:fixed">cover</div>',
  "<!-- hidden -->",
  "<style>body{display:none}</style>",
  "[ref]\n\n[ref]: javascript:alert(1)",
  "| a | b |\n|---|---|\n| <b>x</b> | ![i](http://e/i.png) |",
  SUMMARY,
];

describe("renderMarkdown: an agent's last message as safe Markdown (issue 35 item 4)", () => {
  it("renders a realistic summary: paragraphs, a list, a code block, inline code, emphasis", () => {
    const markup = html(SUMMARY);
    expect(markup.startsWith('<div class="markdown">')).toBe(true);
    expect(markup).toContain("<strong>per key</strong>");
    expect(markup).toContain('<code class="md-code-inline" dir="ltr">npm test</code>');
    expect(markup).toMatch(/<ul><li dir="auto"><code[^>]*>src\/cache.ts<\/code>: a <code[^>]*>Map<\/code>/);
    expect(markup).toContain("<em>tests</em>");
    expect(markup).toContain(
      '<pre class="md-code" dir="ltr" tabindex="0" data-lang="ts"><code>export function expire(key: string, ms: number): void {\n',
    );
    expect(markup).toContain("() =&gt; cache.delete(key)");
    expect(markup).toContain(
      '<span class="md-link">docs</span> <span class="md-url" title="Links are not opened from here">(https://example.com/docs)</span>',
    );
  });

  it("makes only harmless elements with its own attributes, whatever the input", () => {
    for (const source of HOSTILE) {
      const markup = html(source);
      expect({
        source,
        tags: tags(markup).filter((tag) => !(MARKDOWN_ELEMENTS as readonly string[]).includes(tag)),
      }).toEqual({ source, tags: [] });
      expect({ source, attributes: attributes(markup).filter((name) => !ALLOWED_ATTRIBUTES.includes(name)) }).toEqual({
        source,
        attributes: [],
      });
    }
  });

  it("shows raw HTML as text, never as markup", () => {
    expect(html("<script>alert(1)</script>")).toBe(
      '<div class="markdown"><p class="md-raw" dir="auto">&lt;script&gt;alert(1)&lt;/script&gt;</p></div>',
    );
    expect(html("Hi <script>alert(1)</script> there")).toBe(
      '<div class="markdown"><p dir="auto">Hi &lt;script&gt;alert(1)&lt;/script&gt; there</p></div>',
    );
    expect(html('<img src="http://evil.example/x.png" onerror="alert(1)">')).toContain(
      "&lt;img src=&quot;http://evil.example/x.png&quot; onerror=&quot;alert(1)&quot;&gt;",
    );
  });

  it("never loads an image: the alt text is shown, the address is in no src", () => {
    const markup = html("Look: ![tracking pixel](http://evil.example/p.png) and ![](https://evil.example/q.png)");
    expect(markup).toBe(
      '<div class="markdown"><p dir="auto">Look: <span class="md-image" title="Images are not loaded here">[image: tracking pixel]</span>' +
        ' and <span class="md-image" title="Images are not loaded here">[image]</span></p></div>',
    );
    expect(markup).not.toContain("evil.example");
  });

  it("shows a link's text and its URL as text: nothing to click, a javascript: URL inert", () => {
    const markup = html("[click me](javascript:alert(1)) or https://example.com/x");
    expect(markup).toBe(
      '<div class="markdown"><p dir="auto"><span class="md-link">click me</span> ' +
        '<span class="md-url" title="Links are not opened from here">(javascript:alert(1))</span>' +
        ' or <span class="md-link">https://example.com/x</span></p></div>',
    );
    expect(markup).not.toMatch(/<a\b|href=/);
  });

  it("shows every bidi control as a visible token: in text, inline code, a code block and an entity", () => {
    const markup = html(
      "Ran `rm -rf \u202Efdp.exe` ok\n\n```sh\nls\u2066 -la\n```\n\nsee invoice&#x202E;txt.exe and\u200F done",
    );
    expect(markup).not.toMatch(/[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/);
    const token = (code: string, name: string) =>
      `<mark class="bidi-control" title="Hidden ${name} (U+${code})">&lt;U+${code}&gt;</mark>`;
    expect(markup).toContain(
      `<code class="md-code-inline" dir="ltr">rm -rf ${token("202E", "right-to-left override")}fdp.exe</code>`,
    );
    expect(markup).toContain(`<code>ls${token("2066", "left-to-right isolate")} -la</code>`);
    expect(markup).toContain(`invoice${token("202E", "right-to-left override")}txt.exe`);
    expect(markup).toContain(`and${token("200F", "right-to-left mark")} done`);
  });

  it("reads entity references once, as text", () => {
    expect(html("a &lt;b&gt; &amp;lt; &copy; &#38;amp; &unknown;")).toBe(
      '<div class="markdown"><p dir="auto">a &lt;b&gt; &amp;lt; © &amp;amp; &amp;unknown;</p></div>',
    );
  });

  it("keeps a huge code block whole, in one scrollable block, quickly", () => {
    const line = `const value${"x".repeat(300)} = compute(${"'arg', ".repeat(20)});\n`;
    const code = line.repeat(600); // about 250 KB, far past the 2000 characters a prompt holds
    const started = performance.now();
    const markup = html(`Here:\n\n\`\`\`js\n${code}\`\`\`\n\nEnd.`);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(markup.match(/<pre class="md-code"/g)).toHaveLength(1);
    expect(markup.split("compute(").length - 1).toBe(600);
    expect(markup).toContain('<p dir="auto">End.</p>');
  });

  it("takes the broker's cut marker off, even inside an open code block, and says it below", () => {
    const prompt = "Summary:\n\n```\nline 1\nline 2\n… [cut: 1234 more characters not shown]";
    expect(splitCut(prompt)).toEqual({ body: "Summary:\n\n```\nline 1\nline 2", cut: 1234 });
    const markup = html(prompt);
    expect(markup).toContain("<code>line 1\nline 2</code></pre>");
    expect(markup).toContain('<p class="md-cut">… 1234 more characters not shown (cut by Notify)</p>');
    expect(splitCut("no marker")).toEqual({ body: "no marker", cut: 0 });
  });

  it("survives deep nesting and odd input", () => {
    for (const source of [`${">".repeat(3000)} deep`, `${"- ".repeat(2000)}x`, "", "\u0000\u0007", "*".repeat(5000)]) {
      const markup = html(source);
      expect(markup.startsWith('<div class="markdown">')).toBe(true);
    }
    expect(html(`${">".repeat(3000)} deep`)).toContain("deep");
  });

  it("renders tables, task lists, headings and numbered lists", () => {
    const markup = html("# Result\n\n1. one\n2. two\n\n- [x] done\n- [ ] todo\n\n| a | b |\n|---|---|\n| 1 | `2` |");
    expect(markup).toContain('<p class="md-heading md-h1" dir="auto"><strong>Result</strong></p>');
    expect(markup).toContain('<ol><li dir="auto">one</li><li dir="auto">two</li></ol>');
    expect(markup).toContain('<li dir="auto"><span class="md-task">[x] </span>done</li>');
    expect(markup).toContain('<div class="md-table"><table><thead><tr><th dir="auto">a</th>');
    expect(html("3. three\n4. four")).toContain('<ol start="3">');
  });
});

describe("follow-up helpers", () => {
  it("a follow-up is a text question under a session's own key", () => {
    const key = `claude-code:session:${"a1".repeat(16)}`;
    expect(isFollowUp({ kind: "text", key })).toBe(true);
    expect(isFollowUp({ kind: "text", key: `codex:session:${"0".repeat(32)}` })).toBe(true);
    expect(isFollowUp({ kind: "single_choice", key })).toBe(false);
    expect(isFollowUp({ kind: "text", key: `claude-code:tool:${"a1".repeat(16)}` })).toBe(false);
    expect(isFollowUp({ kind: "text", key: null })).toBe(false);
    expect(isFollowUp({ kind: "text" })).toBe(false);
  });

  it("names the agent as a person reads it", () => {
    expect(agentDisplayName("claude-code")).toBe("Claude Code");
    expect(agentDisplayName("codex")).toBe("Codex CLI");
    expect(agentDisplayName("my-bot")).toBe("my-bot");
    expect(agentDisplayName(null)).toBe("the agent");
  });
});
