// Issue 31 (Hardening 3), item 2: text a person reads off the machine shows its controls as visible tokens.
import { describe, expect, it } from "vitest";
import { readableParts, readableText } from "../../../src/outbox/providers/readable-text.js";

describe("readableText (docs/security.md, Bidi controls)", () => {
  it("shows bidi controls, C0 (but tab and newline), DEL and C1 as <U+XXXX> tokens", () => {
    expect(readableText("invoice\u202Etxt.exe")).toBe("invoice<U+202E>txt.exe");
    expect(readableText("\u2066a\u2069 \u200E\u200F\u061C")).toBe("<U+2066>a<U+2069> <U+200E><U+200F><U+061C>");
    expect(readableText("\u001B[31mred\u001B[0m")).toBe("<U+001B>[31mred<U+001B>[0m");
    expect(readableText("nul\u0000 bell\u0007 bs\u0008 vt\u000B ff\u000C del\u007F")).toBe(
      "nul<U+0000> bell<U+0007> bs<U+0008> vt<U+000B> ff<U+000C> del<U+007F>",
    );
    expect(readableText("c1\u0080\u0085\u009B\u009F")).toBe("c1<U+0080><U+0085><U+009B><U+009F>");
  });

  it("keeps tab and newline, turns CR LF and a lone CR into a newline, and leaves other text alone", () => {
    expect(readableText("a\tb\nc\r\nd\re")).toBe("a\tb\nc\nd\ne");
    const plain = "Déployer « prod » ? 日本語 👍🏽 <b>&amp;</b> \u00A0\u00AD";
    expect(readableText(plain)).toBe(plain);
  });

  it("is idempotent: the tokens are plain ASCII", () => {
    const once = readableText("x\u202E\u001B\r\ny\u0085");
    expect(readableText(once)).toBe(once);
  });

  it("readableParts: the title and the message as the adapters send them; a blank message stays left out", () => {
    expect(readableParts({ title: "T\u202E", message: "m\u0007" })).toEqual({
      title: "T<U+202E>",
      message: "m<U+0007>",
    });
    expect(readableParts({ title: "T", message: "  " })).toEqual({ title: "T", message: undefined });
    expect(readableParts({ title: "T" })).toEqual({ title: "T", message: undefined });
  });
});
