import type { RelayPairing } from "@notify/contracts/ui";
import { useEffect, useState } from "react";
import { api } from "../api/client.js";
import { messageOf, useLoad } from "../use-load.js";
import { EnrollForm } from "./enroll-form.js";

/** The phone relay: whether this broker is enrolled, a pairing QR code for a new phone, and the paired devices. */
export function RelayPage() {
  const providers = useLoad(api.outbound.providers);
  const relay = providers.data?.find((provider) => provider.kind === "relay");
  const [message, setMessage] = useState("");
  // While a pairing code is live the device list is re-read every few seconds, so a phone that claims it shows up
  // (and the spent code goes away) without a click.
  const [pairing, setPairing] = useState<RelayPairing>();

  return (
    <section aria-labelledby="relay-title">
      <div className="page-head">
        <h1 id="relay-title">Relay</h1>
        <p className="muted" role="status">
          {message}
        </p>
      </div>
      <div className="card">
        <h2>Enrollment</h2>
        {providers.error && <p className="error">{providers.error}</p>}
        {relay ? (
          <p>
            Enrolled at <strong>{String(relay.settings.url ?? "")}</strong> as installation{" "}
            <code>{String(relay.settings.installationId ?? "")}</code>{" "}
            <span className={relay.enabled ? "state on" : "state"}>{relay.enabled ? "Enabled" : "Disabled"}</span>
          </p>
        ) : (
          providers.data && <p className="muted">Not enrolled. A relay carries questions to your phone.</p>
        )}
        {providers.data && (
          <EnrollForm
            again={relay !== undefined}
            onEnrolled={(url) => {
              setMessage(`Enrolled at ${url}`);
              providers.reload();
            }}
          />
        )}
      </div>
      {relay && <Pairing pairing={pairing} onPairing={setPairing} />}
      {relay && (
        <Devices
          watchUntil={pairing?.expires_at}
          onMessage={setMessage}
          onPaired={(name) => {
            setMessage(`${name} paired`);
            setPairing(undefined);
          }}
        />
      )}
    </section>
  );
}

function Pairing({
  pairing,
  onPairing: setPairing,
}: {
  pairing: RelayPairing | undefined;
  onPairing: (pairing: RelayPairing | undefined) => void;
}) {
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  const pair = async () => {
    setBusy(true);
    try {
      setPairing(await api.relay.pair());
      setError("");
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="card">
      <h2>Pair a phone</h2>
      <p className="muted">
        Scan the code with the phone's camera, or open the link on the phone. Each code works once.
      </p>
      <button type="button" onClick={() => void pair()} disabled={busy}>
        {pairing ? "New pairing code" : "Pair a phone"}
      </button>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {pairing && <PairingCode pairing={pairing} />}
    </div>
  );
}

function PairingCode({ pairing }: { pairing: RelayPairing }) {
  const left = useSecondsLeft(pairing.expires_at);
  const src = `data:image/svg+xml;base64,${btoa(pairing.svg)}`;
  return (
    <div className="pairing">
      <img className="pairing-qr" src={src} alt={`QR code for the pairing link ${pairing.link}`} />
      <dl className="pairing-facts">
        <div>
          <dt>Code</dt>
          <dd>
            <code className="pairing-code">{pairing.code}</code>
          </dd>
        </div>
        <div>
          <dt>Link</dt>
          <dd>
            <a href={pairing.link}>{pairing.link}</a>
          </dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd>{left > 0 ? `in ${countdown(left)}` : "expired: make a new code"}</dd>
        </div>
      </dl>
    </div>
  );
}

/** Seconds until `iso`, ticking once a second (the countdown is shown, not announced, to keep screen readers quiet). */
function useSecondsLeft(iso: string): number {
  const until = Date.parse(iso);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return Number.isNaN(until) ? 0 : Math.max(0, Math.round((until - now) / 1000));
}

function countdown(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  return `${minutes}:${String(seconds % 60).padStart(2, "0")}`;
}

const WATCH_MS = 3000;

function Devices({
  watchUntil,
  onMessage,
  onPaired,
}: {
  watchUntil: string | undefined;
  onMessage: (text: string) => void;
  onPaired: (name: string) => void;
}) {
  const devices = useLoad(api.relay.devices);
  const { reload } = devices;
  useEffect(() => {
    const until = watchUntil === undefined ? Number.NaN : Date.parse(watchUntil);
    if (Number.isNaN(until)) return;
    const timer = setInterval(() => (Date.now() < until ? reload() : clearInterval(timer)), WATCH_MS);
    return () => clearInterval(timer);
  }, [watchUntil, reload]);
  // A device that was not in the list when the code was made is the phone that claimed it.
  const [known, setKnown] = useState<Set<string>>();
  const listed = devices.data?.devices;
  useEffect(() => {
    if (!listed) return;
    const ids = new Set(listed.map((device) => device.device_id));
    if (known && watchUntil !== undefined) {
      const fresh = listed.find((device) => !known.has(device.device_id));
      if (fresh) onPaired(fresh.device_name);
    }
    if (!known || ids.size !== known.size || [...ids].some((id) => !known.has(id))) setKnown(ids);
  }, [listed, known, watchUntil, onPaired]);
  const revoke = async (deviceId: string, name: string) => {
    try {
      await api.relay.revoke(deviceId);
      onMessage(`Revoked ${name}`);
    } catch (failure) {
      onMessage(messageOf(failure));
    }
    devices.reload();
  };
  return (
    <div className="card">
      <h2>Paired devices</h2>
      <button type="button" onClick={devices.reload}>
        Refresh
      </button>
      {devices.error && <p className="error">{devices.error}</p>}
      {devices.data?.devices.length === 0 && <p className="muted">No phone is paired yet.</p>}
      <ul className="plain-list">
        {devices.data?.devices.map((device) => (
          <li key={device.device_id} className="config-row">
            <div>
              <strong>{device.device_name}</strong>
              <p className="muted">
                <code>{device.device_id}</code>
              </p>
            </div>
            <div className="actions">
              <button type="button" onClick={() => void revoke(device.device_id, device.device_name)}>
                Revoke <span className="visually-hidden">{device.device_name}</span>
              </button>
            </div>
          </li>
        ))}
      </ul>
    </div>
  );
}
