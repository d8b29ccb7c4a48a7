// Issue 31 (Hardening 3), item 5: the Socket Mode URL is taken only as wss://, or as ws:// on loopback beside a
// loopback apiBaseUrl (the loopback Slack of the tests).
import { describe, expect, it } from "vitest";
import { socketUrl } from "../../src/surfaces/slack/loop.js";

const SLACK = "https://slack.com/api";
const LOOPBACK = "http://127.0.0.1:8123/api";

describe("socketUrl", () => {
  it("takes wss:// whatever the apiBaseUrl", () => {
    expect(socketUrl("wss://wss-primary.slack.com/link/?ticket=abc", SLACK)).toEqual({
      url: "wss://wss-primary.slack.com/link/?ticket=abc",
    });
    expect(socketUrl("wss://127.0.0.1:9/link/", LOOPBACK)).toEqual({ url: "wss://127.0.0.1:9/link/" });
  });

  it("takes ws:// only to loopback and only beside a loopback apiBaseUrl", () => {
    expect(socketUrl("ws://127.0.0.1:8123/link/?ticket=1", LOOPBACK)).toEqual({
      url: "ws://127.0.0.1:8123/link/?ticket=1",
    });
    expect(socketUrl("ws://[::1]:8123/link/", "http://localhost:8123/api")).toEqual({ url: "ws://[::1]:8123/link/" });
    expect(socketUrl("ws://127.0.0.1:8123/link/", SLACK)).toEqual({ refused: "socket_url_insecure" });
    expect(socketUrl("ws://wss-primary.slack.com/link/", SLACK)).toEqual({ refused: "socket_url_insecure" });
    expect(socketUrl("ws://wss-primary.slack.com/link/", LOOPBACK)).toEqual({ refused: "socket_url_insecure" });
    expect(socketUrl("ws://127.0.0.2/link/", LOOPBACK)).toEqual({ refused: "socket_url_insecure" });
  });

  it("refuses anything else as a bad reply", () => {
    for (const value of ["", "not a url", "https://slack.com/link/", "http://127.0.0.1/link/", "file:///etc/passwd"]) {
      expect(socketUrl(value, LOOPBACK)).toEqual({ refused: "slack_bad_reply" });
    }
  });
});
