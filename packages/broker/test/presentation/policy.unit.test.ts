import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/domain/clock.js";
import { TypeRegistry } from "../../src/notifications/type-ids.js";
import { PRIORITIES } from "../../src/notifications/types.js";
import { type Effect, ToastPolicy } from "../../src/presentation/policy.js";
import { soundPlays } from "../../src/presentation/sound-rule.js";
import { FALLBACK_TOAST_MS } from "../../src/presentation/toast.js";
import { notification, question, settings } from "./fixtures.js";

function policyWith(patch: Parameters<typeof settings>[0] = {}, types = new TypeRegistry()) {
  const clock = new ManualClock();
  const policy = new ToastPolicy(settings(patch), clock, types);
  policy.setAvailable(true);
  return { clock, policy };
}

const shown = (effects: Effect[]) =>
  effects.filter((effect) => effect.kind === "show").map((effect) => (effect.kind === "show" ? effect.toast.key : ""));
const closed = (effects: Effect[]) =>
  effects.filter((effect) => effect.kind === "close").map((effect) => (effect.kind === "close" ? effect.key : ""));
const sounds = (effects: Effect[]) => effects.filter((effect) => effect.kind === "sound");

describe("docs/desktop.md, 'Local presentation rules', rule 5: the sound rule, every combination of its four switches and every priority", () => {
  const cases: { soundsEnabled: boolean; pause: boolean; dnd: boolean; critical: boolean; priority: string }[] = [];
  for (const soundsEnabled of [true, false])
    for (const pause of [true, false])
      for (const dnd of [true, false])
        for (const critical of [true, false])
          for (const priority of PRIORITIES) cases.push({ soundsEnabled, pause, dnd, critical, priority });

  it("has 64 rows", () => expect(cases).toHaveLength(64));

  it.each(cases)(
    "soundsEnabled=$soundsEnabled pause=$pause dnd=$dnd criticalDuringDnd=$critical priority=$priority",
    (row) => {
      // The rule written out independently of the implementation, as the spec states it.
      const expected = row.soundsEnabled && !row.pause && (!row.dnd || (row.priority === "critical" && row.critical));
      const patch = {
        soundsEnabled: row.soundsEnabled,
        pauseNotifications: row.pause,
        doNotDisturb: row.dnd,
        playCriticalSoundsDuringDoNotDisturb: row.critical,
      };
      expect(soundPlays(settings(patch), row.priority as (typeof PRIORITIES)[number])).toBe(expected);
      // And through the policy: a created notification yields a sound effect exactly then.
      const { policy } = policyWith(patch);
      policy.notificationCreated(notification("n1", { priority: row.priority as (typeof PRIORITIES)[number] }));
      const effects = policy.drain();
      expect(sounds(effects)).toHaveLength(expected ? 1 : 0);
      // Rule 4: doNotDisturb never suppresses the toast; rule 1: pause does.
      expect(shown(effects)).toEqual(row.pause ? [] : ["n:n1"]);
    },
  );

  it("rule 6: volume 0 is silent, 1 is not", () => {
    expect(soundPlays(settings({ volume: 0 }), "critical")).toBe(false);
    expect(soundPlays(settings({ volume: 1 }), "low")).toBe(true);
  });

  it("the sound is the per-type choice, else the definition's, else the built-in type's tone; none silences", () => {
    const types = new TypeRegistry([
      { id: "deploy", label: "Deploy", enabled: true, sound: "knock" },
      { id: "off", label: "Off", enabled: false, sound: "alert" },
    ]);
    const { policy } = policyWith({}, types);
    policy.setTypeSounds({ completed: "ping", blocked: "none" });
    policy.notificationCreated(notification("a", { type: "deploy" }));
    policy.notificationCreated(notification("b", { type: "error" }));
    policy.notificationCreated(notification("c", { type: "completed" }));
    policy.notificationCreated(notification("d", { type: "blocked" }));
    policy.notificationCreated(notification("e", { type: "off" })); // disabled: info's tone
    const played = sounds(policy.drain()).map((effect) => (effect.kind === "sound" ? [effect.key, effect.sound] : []));
    expect(played).toEqual([
      ["n:a", "knock"],
      ["n:b", "alert"],
      ["n:c", "ping"],
      ["n:e", "chime"],
    ]);
  });
});

describe("docs/desktop.md, 'Local presentation rules', rule 2: the queue under bursts", () => {
  it.each([1, 5, 20])(
    "maxVisibleToasts %i: a burst of 100 shows in order, none lost, each close frees a slot",
    (max) => {
      const { clock, policy } = policyWith({ maxVisibleToasts: max });
      const ids = Array.from({ length: 100 }, (_, index) => `n${index}`);
      for (const id of ids) policy.notificationCreated(notification(id));
      const order: string[] = shown(policy.drain());
      expect(order).toEqual(ids.slice(0, max).map((id) => `n:${id}`));
      expect(policy.visibleKeys()).toHaveLength(max);
      expect(policy.queuedKeys()).toHaveLength(100 - max);
      // Close visible toasts one at a time, oldest first, as a person or the server would: one new toast each.
      while (policy.visibleKeys().length > 0) {
        const [first] = policy.visibleKeys();
        const waiting = policy.queuedKeys().length;
        policy.closedOnDesktop(first as string, "dismissed");
        const effects = policy.drain();
        expect(shown(effects)).toHaveLength(waiting > 0 ? 1 : 0);
        order.push(...shown(effects));
        expect(policy.visibleKeys().length).toBeLessThanOrEqual(max);
        clock.advance(10);
      }
      expect(order).toEqual(ids.map((id) => `n:${id}`));
    },
  );

  it("a second burst while the first is draining still comes out in arrival order", () => {
    const { policy } = policyWith({ maxVisibleToasts: 5 });
    for (let index = 0; index < 20; index++) policy.notificationCreated(notification(`a${index}`));
    const order = shown(policy.drain());
    for (let index = 0; index < 3; index++) policy.closedOnDesktop(policy.visibleKeys()[0] as string, "expired");
    for (let index = 0; index < 20; index++) policy.notificationCreated(notification(`b${index}`));
    order.push(...shown(policy.drain()));
    while (policy.visibleKeys().length > 0) {
      policy.closedOnDesktop(policy.visibleKeys()[0] as string, "dismissed");
      order.push(...shown(policy.drain()));
    }
    expect(order).toEqual([
      ...Array.from({ length: 20 }, (_, index) => `n:a${index}`),
      ...Array.from({ length: 20 }, (_, index) => `n:b${index}`),
    ]);
  });

  it("rule 3: dismissing or resolving closes a visible toast (freeing its slot) and drops a waiting one", () => {
    const { policy } = policyWith({ maxVisibleToasts: 1 });
    policy.notificationCreated(notification("a"));
    policy.notificationCreated(notification("b"));
    policy.notificationCreated(notification("c"));
    policy.drain();
    policy.notificationChanged(notification("b", { status: "dismissed" }));
    expect(policy.drain()).toEqual([]);
    policy.notificationChanged(notification("a", { status: "resolved" }));
    const effects = policy.drain();
    expect(closed(effects)).toEqual(["n:a"]);
    expect(shown(effects)).toEqual(["n:c"]);
  });

  it("a closed event for a toast already gone (or never shown) changes nothing", () => {
    const { policy } = policyWith({ maxVisibleToasts: 1 });
    policy.notificationCreated(notification("a"));
    policy.notificationCreated(notification("b"));
    policy.drain();
    policy.closedOnDesktop("n:b", "dismissed");
    policy.closedOnDesktop("n:zzz", "closed");
    expect(policy.drain()).toEqual([]);
    expect(policy.visibleKeys()).toEqual(["n:a"]);
  });

  it("raising maxVisibleToasts shows waiting toasts at once; lowering it never closes visible ones", () => {
    const { policy } = policyWith({ maxVisibleToasts: 1 });
    for (const id of ["a", "b", "c", "d"]) policy.notificationCreated(notification(id));
    policy.drain();
    policy.setSettings(settings({ maxVisibleToasts: 3 }));
    expect(shown(policy.drain())).toEqual(["n:b", "n:c"]);
    policy.setSettings(settings({ maxVisibleToasts: 1 }));
    expect(policy.drain()).toEqual([]);
    policy.closedOnDesktop("n:a", "dismissed");
    policy.closedOnDesktop("n:b", "dismissed");
    expect(shown(policy.drain())).toEqual([]);
    policy.closedOnDesktop("n:c", "dismissed");
    expect(shown(policy.drain())).toEqual(["n:d"]);
  });

  it("the desktop going away puts visible toasts back at the head of the queue, shown again when it returns", () => {
    const { policy } = policyWith({ maxVisibleToasts: 2 });
    for (const id of ["a", "b", "c"]) policy.notificationCreated(notification(id));
    policy.drain();
    policy.setAvailable(false);
    policy.notificationCreated(notification("d"));
    expect(shown(policy.drain())).toEqual([]);
    expect(policy.queuedKeys()).toEqual(["n:a", "n:b", "n:c", "n:d"]);
    policy.setAvailable(true);
    expect(shown(policy.drain())).toEqual(["n:a", "n:b"]);
  });
});

describe("docs/desktop.md, 'Local presentation rules', rule 1: pause", () => {
  it("paused: no toast, no sound, nothing queued; unpaused: new ones show again", () => {
    const { policy } = policyWith({ pauseNotifications: true });
    policy.notificationCreated(notification("a", { priority: "critical" }));
    policy.interactionOpened(question("q1"));
    expect(policy.drain()).toEqual([]);
    expect(policy.queuedKeys()).toEqual([]);
    policy.setSettings(settings({ pauseNotifications: false }));
    policy.notificationCreated(notification("b"));
    const effects = policy.drain();
    expect(shown(effects)).toEqual(["n:b"]);
    expect(sounds(effects)).toHaveLength(1);
  });

  it("pausing holds the waiting queue (no toast while paused) and resuming shows it in order", () => {
    const { policy } = policyWith({ maxVisibleToasts: 1 });
    for (const id of ["a", "b", "c"]) policy.notificationCreated(notification(id));
    policy.drain();
    policy.setSettings(settings({ maxVisibleToasts: 1, pauseNotifications: true }));
    policy.closedOnDesktop("n:a", "expired");
    expect(shown(policy.drain())).toEqual([]);
    policy.setSettings(settings({ maxVisibleToasts: 1 }));
    expect(shown(policy.drain())).toEqual(["n:b"]);
  });
});

describe("docs/desktop.md, 'Local presentation rules', rule 7: lifetimes and the 7-second fallback (injected clock)", () => {
  const types = new TypeRegistry([
    { id: "deploy", label: "Deploy", enabled: true, toastSeconds: 20, icon: "rocket" },
    { id: "muted", label: "Muted", enabled: false, toastSeconds: 60 },
  ]);

  it.each([
    ["info", FALLBACK_TOAST_MS, "info"],
    ["error", FALLBACK_TOAST_MS, "error"],
    ["unknown_type", FALLBACK_TOAST_MS, "info"],
    ["muted", FALLBACK_TOAST_MS, "info"],
    ["deploy", 20_000, "deploy"],
  ])("type %s lives %i ms with %s styling", (type, lifetime, style) => {
    const { clock, policy } = policyWith({}, types);
    policy.notificationCreated(notification("a", { type }));
    const [show] = policy.drain().filter((effect) => effect.kind === "show");
    expect(show?.kind === "show" && show.toast.lifetimeMs).toBe(lifetime);
    expect(show?.kind === "show" && show.toast.styleTypeId).toBe(style);
    expect(policy.nextDeadline()).toBe(clock.now() + lifetime);
    clock.advance(lifetime - 1);
    policy.expireDue();
    expect(policy.drain()).toEqual([]);
    clock.advance(1);
    policy.expireDue();
    expect(closed(policy.drain())).toEqual(["n:a"]);
    expect(policy.visibleKeys()).toEqual([]);
  });

  it("an expired toast frees its slot for the next one, whose own 7 seconds start when it shows", () => {
    const { clock, policy } = policyWith({ maxVisibleToasts: 1 });
    policy.notificationCreated(notification("a"));
    clock.advance(3000);
    policy.notificationCreated(notification("b"));
    policy.drain();
    clock.advance(4000);
    policy.expireDue();
    const effects = policy.drain();
    expect(closed(effects)).toEqual(["n:a"]);
    expect(shown(effects)).toEqual(["n:b"]);
    expect(policy.nextDeadline()).toBe(clock.now() + FALLBACK_TOAST_MS);
  });
});

describe("questions on toasts", () => {
  it("a permission question's notification toast carries choice actions, stays until it settles, then closes", () => {
    const { policy } = policyWith();
    policy.notificationCreated(notification("a", { type: "permission_required" }), question("q1"));
    const show = policy.drain().find((effect) => effect.kind === "show");
    expect(show?.kind).toBe("show");
    if (show?.kind !== "show") return;
    expect(show.toast.actions).toEqual([
      { key: "choice:allow", label: "Allow" },
      { key: "choice:deny", label: "Deny" },
      { key: "default", label: "Open" },
    ]);
    expect(show.toast.lifetimeMs).toBe(0);
    expect(policy.nextDeadline()).toBeUndefined();
    policy.interactionChanged(question("q1", { status: "expired" }));
    expect(closed(policy.drain())).toEqual(["n:a"]);
  });

  it("a question opened after its notification's toast is visible updates that toast in place", () => {
    const { policy } = policyWith();
    policy.notificationCreated(notification("a"));
    policy.drain();
    policy.interactionOpened(question("q1", { kind: "single_choice" }), "a");
    const [update] = policy.drain();
    expect(update?.kind).toBe("update");
    expect(update?.kind === "update" && update.toast.actions.map((action) => action.key)).toEqual([
      "choice:allow",
      "choice:deny",
      "default",
    ]);
  });

  it("a question with a context: its toast's body ends with the one-line summary (issue 36), once", () => {
    const { policy } = policyWith();
    policy.notificationCreated(notification("a"));
    policy.drain();
    policy.interactionOpened(question("q1"), "a", "src/db.ts +12 -4");
    const [update] = policy.drain();
    expect(update?.kind === "update" && update.toast.body.split("\n").at(-1)).toBe("src/db.ts +12 -4");
    policy.interactionOpened(question("q2"), undefined, "src/\u202Eevil.ts +1 -0");
    expect(policy.toastOf("q:q2")?.body.endsWith("src/<U+202E>evil.ts +1 -0")).toBe(true);
  });

  it("an MCP form's field question has no toast: its notification's toast goes, shown or waiting (issue 36)", () => {
    const { policy } = policyWith({ maxVisibleToasts: 1 });
    // A toast already on the desktop, so a field's toast waits in the queue.
    policy.notificationCreated(notification("other"));
    policy.drain();
    // As the broker records them: each field's notification, then its question; the decision last.
    policy.notificationCreated(notification("field-1"));
    policy.interactionWithoutToast(question("q1"), "field-1");
    policy.notificationCreated(notification("field-2"));
    policy.interactionWithoutToast(question("q2"), "field-2");
    policy.notificationCreated(notification("decision"));
    policy.notificationChanged(notification("other", { status: "resolved" }));
    const effects = policy.drain();
    expect(closed(effects)).toEqual(["n:other"]);
    // The fields' toasts never show; the form's own toast takes the slot.
    expect(shown(effects)).toEqual(["n:decision"]);
  });

  it("a question without a notification gets its own toast and sound; a text question has no choice buttons", () => {
    const { policy } = policyWith();
    policy.interactionOpened(question("q1"));
    policy.interactionOpened(question("q2", { kind: "text", choices: [] }));
    const effects = policy.drain();
    expect(shown(effects)).toEqual(["q:q1", "q:q2"]);
    expect(sounds(effects)).toHaveLength(2);
    expect(policy.toastOf("q:q2")?.actions).toEqual([{ key: "default", label: "Open" }]);
    policy.interactionChanged(question("q1", { status: "answered" }));
    expect(closed(policy.drain())).toEqual(["q:q1"]);
  });
});
