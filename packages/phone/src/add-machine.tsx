import { useState } from "react";
import { type JoinCode, joinCode, RelayStatusError } from "./relay-client.js";

/** The relay's own words for a refusal (its `{error: {code, message}}` body), else a short fallback. */
function refusal(error: unknown): string {
  if (error instanceof RelayStatusError) {
    const message = (error.body as { error?: { message?: unknown } } | null)?.error?.message;
    if (typeof message === "string") return message;
    return `The relay refused (${error.status}).`;
  }
  return "The relay could not be reached. Try again.";
}

/**
 * Several machines, one phone (issue 37, item 2; docs/relay.md, "Several machines, one phone"): the phone makes a one-time join
 * code and shows the command to run on the other machine, which then sends its questions here too.
 */
export function AddMachine({ token }: { token: string }) {
  const [made, setMade] = useState<JoinCode | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const make = async () => {
    setBusy(true);
    setError(undefined);
    try {
      setMade(await joinCode(token));
    } catch (caught) {
      setError(refusal(caught));
    } finally {
      setBusy(false);
    }
  };
  const shown = made === undefined ? undefined : `${made.code.slice(0, 5)}-${made.code.slice(5)}`;
  return (
    <section className="add-machine" aria-label="Add a machine">
      <button type="button" className="secondary" disabled={busy} onClick={() => void make()}>
        {made === undefined ? "Add a machine" : "New code"}
      </button>
      {made !== undefined && shown !== undefined && (
        <div className="join-code" role="status">
          <p className="join-hint">On the other machine, run (the code works once, for 10 minutes):</p>
          <code className="join-command">
            notify relay join {made.relay_url} {shown}
          </code>
        </div>
      )}
      {error !== undefined && (
        <p className="hint" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
