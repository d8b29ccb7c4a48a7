import { useState } from "react";
import { putPushSubscription, vapidPublicKey } from "./relay-client.js";

function bytesOf(base64url: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(new ArrayBuffer(text.length));
  for (let index = 0; index < text.length; index++) bytes[index] = text.charCodeAt(index);
  return bytes;
}

/**
 * Asks for notification permission (browsers require a tap for it) and subscribes to Web Push with the relay's
 * VAPID key, then registers the subscription at the relay. The pushes carry no content (phone.md).
 */
export function NotificationsToggle({ token }: { token: string }) {
  const supported = "PushManager" in window && "Notification" in window;
  const [state, setState] = useState<string | undefined>(undefined);
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
      {state === undefined ? null : (
        <p className="hint" role="status">
          {state}
        </p>
      )}
    </div>
  );
}
