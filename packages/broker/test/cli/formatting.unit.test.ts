import { describe, expect, it } from "vitest";
import { parseChoice } from "../../src/cli/commands/ask.js";
import { formatTable } from "../../src/cli/commands/list.js";
import { formatUptime } from "../../src/cli/commands/status.js";

describe("CLI formatting helpers", () => {
  it("parses --choice id=label[:detail], the detail keeping later colons", () => {
    expect(parseChoice("yes=Yes")).toEqual({ id: "yes", label: "Yes" });
    expect(parseChoice("ship=Ship it:deploys at 10:30")).toEqual({
      id: "ship",
      label: "Ship it",
      detail: "deploys at 10:30",
    });
    expect(() => parseChoice("=Yes")).toThrow(/expected id=label/);
    expect(() => parseChoice("yes=")).toThrow(/expected id=label/);
  });

  it("pads every column but the last to its widest cell", () => {
    expect(
      formatTable([
        ["ID", "TITLE"],
        ["long-id", "a b"],
        ["x", "c"],
      ]),
    ).toBe("ID       TITLE\nlong-id  a b\nx        c\n");
  });

  it("formats uptime from seconds", () => {
    expect(formatUptime(4.7)).toBe("4s");
    expect(formatUptime(3725)).toBe("1h 2m 5s");
    expect(formatUptime(90_061)).toBe("1d 1h 1m 1s");
  });
});
