import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { modelIdsOf } from "../../src/model-router/model-list-fetch.js";
import { codexHome, readCodexModelCache, readOtherToolKey } from "../../src/model-router/other-tools.js";
import { tempDir } from "../helpers.js";

/** Where other tools keep what the router may read when asked, in the shapes those tools write. */

describe("other tools' files", () => {
  it("finds Codex under $CODEX_HOME, else ~/.codex", () => {
    expect(codexHome({ HOME: "/home/a" })).toBe("/home/a/.codex");
    expect(codexHome({ HOME: "/home/a", CODEX_HOME: "/opt/codex" })).toBe("/opt/codex");
  });

  it("reads Codex's OPENAI_API_KEY; a ChatGPT sign-in (null key, tokens only) holds none", () => {
    const home = tempDir();
    const codex = join(home, "codex");
    mkdirSync(codex);
    const env = { HOME: home, CODEX_HOME: codex };
    writeFileSync(join(codex, "auth.json"), JSON.stringify({ OPENAI_API_KEY: " sk-one \n" }));
    expect(readOtherToolKey({ env }, "codex")).toBe("sk-one");
    // The shape of a ChatGPT sign-in (openai/codex AuthDotJson): the key is null and the tokens are not a key.
    writeFileSync(
      join(codex, "auth.json"),
      JSON.stringify({
        auth_mode: "chatgpt",
        OPENAI_API_KEY: null,
        tokens: { id_token: "eyJ.a.b", access_token: "eyJ.c.d", refresh_token: "rt", account_id: "acc" },
        last_refresh: "2026-11-23T20:00:00Z",
      }),
    );
    expect(() => readOtherToolKey({ env }, "codex")).toThrow("Codex's auth.json holds no API key (OPENAI_API_KEY)");
    writeFileSync(join(codex, "auth.json"), "[1]");
    expect(() => readOtherToolKey({ env }, "codex")).toThrow("Codex's auth.json is not a JSON object");
  });

  it("reads Claude Code's primaryApiKey from $CLAUDE_CONFIG_DIR/.claude.json, else ~/.claude.json", () => {
    const home = tempDir();
    expect(() => readOtherToolKey({ env: { HOME: home } }, "claude_code")).toThrow(
      "Claude Code's .claude.json was not found",
    );
    writeFileSync(join(home, ".claude.json"), JSON.stringify({ primaryApiKey: "sk-ant-home" }));
    expect(readOtherToolKey({ env: { HOME: home } }, "claude_code")).toBe("sk-ant-home");
    const config = join(home, "config");
    mkdirSync(config);
    writeFileSync(join(config, ".claude.json"), JSON.stringify({ primaryApiKey: "sk-ant-config" }));
    expect(readOtherToolKey({ env: { HOME: home, CLAUDE_CONFIG_DIR: config } }, "claude_code")).toBe("sk-ant-config");
  });

  it("refuses a tool file over 4 MiB without parsing it", () => {
    const home = tempDir();
    writeFileSync(join(home, ".claude.json"), `{"primaryApiKey":"k","pad":"${"x".repeat(4 * 1024 * 1024)}"}`);
    expect(() => readOtherToolKey({ env: { HOME: home } }, "claude_code")).toThrow("larger than 4 MiB");
  });

  it("keeps only listed, well-formed entries of Codex's model cache, by priority then file order", () => {
    const home = tempDir();
    mkdirSync(join(home, ".codex"));
    writeFileSync(
      join(home, ".codex", "models_cache.json"),
      JSON.stringify({
        fetched_at: "2026-11-23T20:00:00Z",
        models: [
          null,
          { slug: "b", visibility: "list", priority: 2 },
          { slug: "hidden", visibility: "hide", priority: 0 },
          { slug: "a", visibility: "list", priority: 1 },
          { slug: "no-priority", visibility: "list" },
          { slug: 7, visibility: "list", priority: 0 },
          { slug: "a", visibility: "list", priority: 5 },
        ],
      }),
    );
    expect(readCodexModelCache({ env: { HOME: home } })).toEqual(["a", "b", "no-priority"]);
  });
});

describe("model list shapes", () => {
  it("reads {data:[{id}]}, bare arrays of objects or strings, and {models:[{name}]}; anything else is not a list", () => {
    expect(modelIdsOf({ data: [{ id: "a" }, { id: "" }, { id: 3 }, { id: "b" }] })).toEqual(["a", "b"]);
    expect(modelIdsOf([{ id: "a" }, "b", null])).toEqual(["a", "b"]);
    expect(modelIdsOf({ models: [{ name: "models/gemini-3-flash" }, { name: "qwen3:8b" }] })).toEqual([
      "models/gemini-3-flash",
      "qwen3:8b",
    ]);
    expect(modelIdsOf({ data: [{ id: "x".repeat(201) }] })).toEqual([]);
    expect(modelIdsOf({ object: "list" })).toBeUndefined();
    expect(modelIdsOf("models")).toBeUndefined();
  });
});
