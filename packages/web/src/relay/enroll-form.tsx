import { useState } from "react";
import { api } from "../api/client.js";
import { messageOf } from "../use-load.js";

/**
 * Enroll at a relay: its URL and the operator's enrollment token. The token is a password field cleared once sent
 * and never shown back (the broker keeps only the installation token the relay returns, sealed).
 */
export function EnrollForm({ again, onEnrolled }: { again: boolean; onEnrolled: (url: string) => void }) {
  const [url, setUrl] = useState("");
  const [error, setError] = useState("");
  const form = (
    <form
      className="stacked-form"
      onSubmit={async (event) => {
        event.preventDefault();
        const element = event.currentTarget;
        const token = element.elements.namedItem("enrollment-token") as HTMLInputElement;
        try {
          await api.relay.enroll({ url, enrollmentToken: token.value });
          token.value = "";
          setError("");
          onEnrolled(url);
        } catch (failure) {
          setError(messageOf(failure));
        }
      }}
    >
      <label>
        <span>Relay URL</span>
        <input
          type="url"
          required
          placeholder="https://relay.example.org"
          value={url}
          onChange={(event) => setUrl(event.target.value)}
        />
      </label>
      <label>
        <span>Enrollment token</span>
        <input name="enrollment-token" type="password" required autoComplete="off" />
      </label>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <button type="submit">Enroll</button>
    </form>
  );
  if (!again) return form;
  return (
    <details>
      <summary>Enroll again (replaces this installation)</summary>
      {form}
    </details>
  );
}
