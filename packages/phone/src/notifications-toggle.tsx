import { useEffect, useState } from "react";
import { COLLAPSE_SETTING, RECOUNT_MESSAGE, REPLACE_FINISHED_SETTING } from "./push-settings.js";
import { putPushSubscription, vapidPublicKey } from "./relay-client.js";
import { get, put } from "./storage.js";

function bytesOf(base64url: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(new ArrayBuffer(text.length));
  for (let index = 0; index < text.length; index++) bytes[index] = text.charCodeAt(index);
  return bytes;
}

/** Asks the service worker to count the open questions again (the count, or none, from the page's cards). */
function recount(): void {
  void navigator.serviceWorker?.ready.then((registration) =>
    registration.active?.postMessage({ type: RECOUNT_MESSAGE }),
  );
}

/** A phone setting for notifications (push-settings.ts): a checkbox, on unless turned off. */
function Setting({ name, label }: { name: string; label: string }) {
  const [on, setOn] = useState(true);
  useEffect(() => {
    void get<boolean>(name).then((stored) => setOn(stored !== false));
  }, [name]);
  return (
    <label className="setting">
      <input
        type="checkbox"
        checked={on}
        onChange={(event) => {
          const next = event.currentTarget.checked;
          setOn(next);
          void put(name, next).then(recount);
        }}
      />{" "}
      {label}
    </label>
  );
}

/**
 * Asks for notification permission (browsers require a tap for it) and subscribes to Web Push with the relay's
 * VAPID key, then registers the subscription at the relay. The pushes carry no content (phone.md).
 */
export function NotificationsToggle({ token }: { token: string }) {
  const supported = "PushManager" in window && "Notification" in window;
  const [state, setState] = useState<string | undefined>(undefined);
  // Less noise (issue 37, item 4): when the page shows or hides, the count of open questions on the lock screen is
  // made again from the cards (those answered here are no longer counted), and closed when none is open.
  useEffect(() => {
    if (!supported) return;
    recount();
    document.addEventListener("visibilitychange", recount);
    return () => document.removeEventListener("visibilitychange", recount);
  }, [supported]);
  if (!supported) return null;
  const turnOn = async () => {
    try {
      if ((await Notification.requestPermission()) !== "granted") {
        setState("Notifications are blocked for this site.");
        return;
      }
      const registration = await navigator.serviceWorker.ready;
      const subscription =
        (await registration.pushManager.getSubscription()) ??
        (await registration.pushManager.subscribe({
          userVisibleOnly: true,
          applicationServerKey: bytesOf(await vapidPublicKey()),
        }));
      await putPushSubscription(token, subscription.toJSON());
      setState("Notifications are on.");
    } catch {
      setState("Notifications are not available in this browser.");
    }
  };
  return (
    <div className="notifications">
      <button type="button" className="secondary" onClick={() => void turnOn()}>
        Turn on notifications
      </button>
      <Setting name={COLLAPSE_SETTING} label="One notification for all open questions" />
      <Setting name={REPLACE_FINISHED_SETTING} label="One “finished” notification per session" />
      {state === undefined ? null : (
        <p className="hint" role="status">
          {state}
        </p>
      )}
    </div>
  );
}
