import { describe, expect, it } from "vitest";
import { bidiParts, hasBidiControls, showBidiControls, terminalJson, terminalText } from "../src/text.js";

describe("bidi controls shown as text", () => {
  it("replaces each of the twelve controls with a token and nothing else", () => {
    const all = "\u061C\u200E\u200F\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069";
    expect(showBidiControls(all)).toBe(
      "<U+061C><U+200E><U+200F><U+202A><U+202B><U+202C><U+202D><U+202E><U+2066><U+2067><U+2068><U+2069>",
    );
    expect(showBidiControls("a\u200Bb\u200Dc שלום")).toBe("a\u200Bb\u200Dc שלום");
    expect(hasBidiControls("plain")).toBe(false);
    expect(hasBidiControls("x\u202E")).toBe(true);
    expect(hasBidiControls("x\u202E")).toBe(true);
  });

  it("cuts text into runs and named controls for a page to style", () => {
    expect(bidiParts("invoice\u202Etxt.exe")).toEqual([
      { text: "invoice" },
      { control: "\u202E", token: "<U+202E>", name: "right-to-left override" },
      { text: "txt.exe" },
    ]);
    expect(bidiParts("")).toEqual([{ text: "" }]);
    expect(bidiParts("\u2066")).toEqual([{ control: "\u2066", token: "<U+2066>", name: "left-to-right isolate" }]);
  });
});

/**
 * Issue 31, item 1: agent and network text on a terminal (the notify and notify-relay CLIs). Controls become visible
 * escapes, bidi controls the web page's tokens; plain text, backslashes included, is untouched.
 */
describe("text for a terminal", () => {
  it("writes every C0, DEL and C1 control as an escape and every bidi control as its token", () => {
    expect(terminalText("a\u001b[2J\u0007b\r\nc\td\u007f\u009b31m\u0000")).toBe(
      "a\\x1B[2J\\x07b\\r\\nc\\td\\x7F\\x9B31m\\x00",
    );
    expect(terminalText("invoice\u202Etxt.exe \u2066x\u2069\u200F\u061C\u2028")).toBe(
      "invoice<U+202E>txt.exe <U+2066>x<U+2069><U+200F><U+061C><U+2028>",
    );
    for (let code = 0; code <= 0x9f; code += 1) {
      if (code >= 0x20 && code < 0x7f) continue;
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the point
      expect(terminalText(String.fromCharCode(code))).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    }
  });

  it("leaves plain text alone, backslashes and shell commands included", () => {
    const plain = "sed 's/\\./x/' C:\\Users — ünïcödé 📱 שלום a\u200Bb";
    expect(terminalText(plain)).toBe(plain);
    expect(terminalText(plain, { lines: true })).toBe(plain);
  });

  it("a block keeps its line feeds, tabs and CRLF line ends; a lone CR is still shown", () => {
    expect(terminalText("one\r\n\ttwo\nthree\rover\u001b[2J", { lines: true })).toBe(
      "one\r\n\ttwo\nthree\\rover\\x1B[2J",
    );
  });

  it("JSON for a terminal: the same value, C1 and bidi as \\u escapes, byte for byte JSON.stringify otherwise", () => {
    const value = { prompt: "ok\u202E\u009b\u007f\u2028\n\u001b", plain: ["ünï 📱", 1, null] };
    const json = terminalJson(value);
    expect(json).not.toMatch(/[\u007f-\u009f\u202e\u2028]/);
    expect(json).toContain("ok\\u202e\\u009b\\u007f\\u2028\\n\\u001b");
    expect(JSON.parse(json)).toEqual(value);
    const normal = { title: "Deploy? ünï 📱", n: [1, 2] };
    expect(terminalJson(normal)).toBe(JSON.stringify(normal, null, 2));
  });
});
