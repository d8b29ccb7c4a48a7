import { describe, expect, it } from "vitest";
import { bidiParts, hasBidiControls, showBidiControls } from "../src/text.js";

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
