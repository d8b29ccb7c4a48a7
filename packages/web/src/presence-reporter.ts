import type { PresenceActivityBody, PresenceActivityResponse } from "@notify/contracts";
import { call } from "./api/client.js";

/**
 * Tells the broker a person is using this page (docs/routing.md, "Presence"): once when it is shown, then at most
 * every `report_every_seconds` (the broker's answer, 30 s by default) while it stays visible and gets input, and
 * once when it is hidden, closed, reloaded or replaced by another page load (the broker lets a hidden page count for a
 * few seconds more, so the page that replaces it takes over without a gap). Only while signed in (app.tsx mounts it
 * then).
 */
const INPUT_EVENTS = ["pointerdown", "pointermove", "keydown", "wheel", "touchstart", "focus"] as const;

export function startPresenceReporter(): () => void {
  const page = pageId();
  let everyMs = 30_000;
  let lastSent = Number.NEGATIVE_INFINITY;
  let trailing: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  const visible = () => document.visibilityState === "visible";
  const send = (shown: boolean) => {
    lastSent = Date.now();
    const body: PresenceActivityBody = { page, visible: shown };
    // keepalive: the hidden report of a page that is closing or reloading is sent while it unloads, and would be
    // cancelled with the page without it (the broker gives that page a grace, so a reload is not leaving).
    call<PresenceActivityResponse>("POST", "/presence/activity", body, { keepalive: true }).then(
      (answer) => {
        if (answer && answer.report_every_seconds > 0) everyMs = answer.report_every_seconds * 1000;
      },
      // A broker that is gone or restarting: the next input tries again; nothing to show the person.
      () => {},
    );
  };
  const clearTrailing = () => {
    if (trailing !== undefined) clearTimeout(trailing);
    trailing = undefined;
  };
  const onInput = () => {
    if (stopped || !visible()) return;
    const wait = lastSent + everyMs - Date.now();
    if (wait <= 0) {
      clearTrailing();
      send(true);
    } else if (trailing === undefined) {
      // Input inside the interval still counts: reported when the interval ends.
      trailing = setTimeout(() => {
        trailing = undefined;
        if (!stopped && visible()) send(true);
      }, wait);
    }
  };
  const onVisibility = () => {
    if (stopped) return;
    clearTrailing();
    send(visible());
  };

  document.addEventListener("visibilitychange", onVisibility);
  for (const name of INPUT_EVENTS) window.addEventListener(name, onInput, { passive: true, capture: true });
  if (visible()) send(true);

  return () => {
    stopped = true;
    clearTrailing();
    document.removeEventListener("visibilitychange", onVisibility);
    for (const name of INPUT_EVENTS) window.removeEventListener(name, onInput, { capture: true });
  };
}

function pageId(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
