import { describe, expect, it } from "vitest";
import type { ConfigSnapshot, Upstream } from "../src/index.js";
import { selectTargets } from "../src/index.js";
import { clientCredential, isNativeFamily, nativeReplyHeaders, nativeRequestHeaders } from "../src/native.js";
import { SwitchState } from "../src/smart-switching.js";
import { upstreamRecord } from "./helpers.js";

/**
 * The agent's own native models (docs/router.md, "The agent's own native models"): selection rule 3, the credential,
 * headers, and rule 6's rest.
 */

const upstream = (slug: string, models: string[]): Upstream =>
  upstreamRecord(slug, models, { created_at: `2026-01-01T00:00:0${slug.length % 10}.000Z` });

const config = (settings: Partial<ConfigSnapshot["settings"]> = {}, routes: ConfigSnapshot["routes"] = []) => ({
  upstreams: [upstream("paid", ["claude-x-1", "other"]), upstream("local2", ["other"])],
  routes,
  settings: {
    default_route: "local2/other",
    switch_strategy: "off" as const,
    native_fallback_route: null,
    ...settings,
  },
});
const NATIVE = { native: { baseUrl: "http://127.0.0.1:9/v1" } };
const names = (selection: ReturnType<typeof selectTargets>) =>
  selection.ok
    ? selection.targets.map((target) => `${target.native ? "*" : ""}${target.upstream.slug}/${target.model}`)
    : selection.error;

describe("selection rule 3", () => {
  it("the family is a bare claude- model ID", () => {
    expect(isNativeFamily("claude-sonnet-4-5")).toBe(true);
    expect(isNativeFamily("vendor/claude-sonnet-4-5")).toBe(false);
    expect(isNativeFamily("gpt-5")).toBe(false);
  });

  it("precedes the declared-model rule and the default route, and appends equivalents then the fallback route", () => {
    const plain = selectTargets(config(), "claude-x-1", NATIVE);
    expect(plain.ok && plain.routeKind).toBe("native");
    expect(names(plain)).toEqual(["*native/claude-x-1", "paid/claude-x-1"]);
    const withFallback = selectTargets(config({ native_fallback_route: "local2/other" }), "claude-x-1", NATIVE);
    expect(names(withFallback)).toEqual(["*native/claude-x-1", "paid/claude-x-1", "local2/other"]);
    // An undeclared native model still goes to the vendor (no default route involved).
    expect(names(selectTargets(config(), "claude-y", NATIVE))).toEqual(["*native/claude-y"]);
  });

  it("only a route named that way overrides it; without a credential it is an ordinary name", () => {
    const route = {
      id: "r",
      name: "claude-y",
      kind: "alias" as const,
      targets: ["paid/other"],
      enabled: true,
      created_at: "",
      updated_at: "",
    };
    expect(names(selectTargets(config({}, [route]), "claude-y", NATIVE))).toEqual(["paid/other"]);
    expect(names(selectTargets(config(), "claude-x-1"))).toEqual(["paid/claude-x-1"]);
    expect(names(selectTargets(config(), "claude-y"))).toEqual(["local2/other"]);
  });

  it("a native target is never added to another request's list", () => {
    const switching = config({ switch_strategy: "ordered" });
    expect(names(selectTargets(switching, "claude-x-1"))).toEqual(["paid/claude-x-1"]);
    expect(names(selectTargets(switching, "other", NATIVE))).toEqual(["paid/other", "local2/other"]);
  });
});

describe("the client's credential and headers", () => {
  const isKey = (value: string) => value === "rk";
  it("is the client's own Authorization or x-api-key, only when the router key came in its own header", () => {
    expect(clientCredential({ "x-api-key": "sk" }, true, isKey)).toEqual({ header: "x-api-key", value: "sk" });
    expect(clientCredential({ authorization: "Bearer sk" }, true, isKey)).toEqual({
      header: "authorization",
      value: "Bearer sk",
    });
    expect(clientCredential({ "x-api-key": "sk" }, false, isKey)).toBeUndefined();
    expect(clientCredential({ authorization: "Bearer rk" }, true, isKey)).toBeUndefined();
    expect(clientCredential({ "x-api-key": "rk" }, true, isKey)).toBeUndefined();
  });

  it("forwards vendor, SDK, user-agent, app and session headers and nothing else", () => {
    const out = nativeRequestHeaders(
      {
        host: "127.0.0.1",
        "x-notify-router-key": "rk",
        "x-api-key": "sk",
        "anthropic-version": "v",
        "x-stainless-os": "Linux",
        "user-agent": "ua",
        "x-app": "cli",
        "x-claude-code-session-id": "s",
        cookie: "c",
        "content-length": "10",
        "x-forwarded-for": "1.2.3.4",
      },
      { header: "x-api-key", value: "sk" },
    );
    expect(out).toEqual({
      "x-api-key": "sk",
      "anthropic-version": "v",
      "x-stainless-os": "Linux",
      "user-agent": "ua",
      "x-app": "cli",
      "x-claude-code-session-id": "s",
    });
    expect(
      nativeReplyHeaders({
        "retry-after": "3",
        "set-cookie": "x",
        "request-id": "r",
        "content-type": "a/b",
      } as unknown as Parameters<typeof nativeReplyHeaders>[0]),
    ).toEqual({
      "retry-after": "3",
      "request-id": "r",
      "content-type": "a/b",
    });
  });
});

describe("rule 6: the vendor rests after a refusal, bounded (injected clock)", () => {
  const selection = selectTargets(config({ native_fallback_route: "local2/other" }), "claude-x-1", NATIVE);
  const targets = selection.ok ? selection.targets : [];
  const first = (order: typeof targets) => `${order[0]?.native ? "*" : ""}${order[0]?.upstream.slug}`;

  it("ordered and round_robin retry the vendor once its cooldown ends", () => {
    let now = 1_000_000;
    const state = new SwitchState(() => now);
    expect(first(state.orderNative("ordered", "n", targets))).toBe("*native");
    state.nativeRefused("n", 30_000);
    expect(first(state.orderNative("ordered", "n", targets))).toBe("paid");
    // The vendor is still there, last.
    expect(state.orderNative("ordered", "n", targets).at(-1)?.native).toBe(true);
    now += 29_999;
    expect(first(state.orderNative("off", "n", targets))).toBe("paid");
    now += 1;
    expect(first(state.orderNative("ordered", "n", targets))).toBe("*native");
  });

  it("sticky stays on the routed fallback that served, however long, until it fails", () => {
    let now = 0;
    const state = new SwitchState(() => now);
    const fallback = targets[2];
    if (!fallback) throw new Error("no fallback");
    state.nativeRefused("n", 30_000);
    state.succeeded("sticky", "n", fallback);
    now += 3_600_000;
    expect(state.orderNative("sticky", "n", targets)[0]).toBe(fallback);
    state.failed("n", fallback);
    expect(first(state.orderNative("sticky", "n", targets))).toBe("*native");
  });

  it("a vendor success ends its rest", () => {
    const state = new SwitchState(() => 0);
    state.nativeRefused("n", 30_000);
    state.succeeded("ordered", "n", targets[0] as (typeof targets)[0]);
    expect(first(state.orderNative("ordered", "n", targets))).toBe("*native");
  });
});
