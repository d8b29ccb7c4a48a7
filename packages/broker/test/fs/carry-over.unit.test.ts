import { describe, expect, it } from "vitest";
import { carryOver, EditConflictError } from "../../src/fs/edit-file.js";

// How an owner's change, made while Notify edited the same file, is carried onto Notify's content
// (fs/edit-file.ts). The JSON case below is the one hooks/concurrent-edits.test.ts hit about 1 run in 5 on a
// loaded machine: the base was read halfway through the owner's in-place write, so it was a byte prefix of what
// the owner then wrote, and the bytes after it were appended to Notify's JSON.

const json = (value: object) => Buffer.from(`${JSON.stringify(value, null, 2)}\n`);
const FILE = "/home/u/.claude/settings.json";

describe("carryOver", () => {
  const ownerNew = json({ model: "opus", owner1: 1, owner2: 2 });
  const notifys = json({ model: "opus", owner1: 1, hooks: { Stop: [] } });

  it("a JSON base caught halfway through the owner's write is merged key by key, never appended as bytes", () => {
    const torn = ownerNew.subarray(0, ownerNew.length - 8);
    const merged = carryOver(torn, ownerNew, notifys, FILE);
    expect(JSON.parse(String(merged))).toEqual({ model: "opus", owner1: 1, owner2: 2, hooks: { Stop: [] } });
  });

  it("JSON: keys the owner set, changed and removed are carried over, Notify's stay", () => {
    const base = json({ model: "opus", gone: true, owner1: 1 });
    const edited = json({ model: "sonnet", owner1: 1, owner2: 2 });
    const onto = json({ model: "opus", gone: true, owner1: 1, hooks: { Stop: [] } });
    expect(JSON.parse(String(carryOver(base, edited, onto, FILE)))).toEqual({
      model: "sonnet",
      owner1: 1,
      owner2: 2,
      hooks: { Stop: [] },
    });
  });

  it("text: lines the owner appended are appended to Notify's content", () => {
    const base = Buffer.from("model = 'o3'\n");
    const edited = Buffer.from("model = 'o3'\n# owner line 1\n");
    const onto = Buffer.from("model = 'o3'\n[hooks]\n");
    expect(String(carryOver(base, edited, onto, "/home/u/.codex/config.toml"))).toBe(
      "model = 'o3'\n[hooks]\n# owner line 1\n",
    );
  });

  it("an owner's JSON that cannot be read is refused, not guessed", () => {
    expect(() => carryOver(json({ a: 1 }), Buffer.from('{"a": 1, "b"'), notifys, FILE)).toThrow(EditConflictError);
  });
});
