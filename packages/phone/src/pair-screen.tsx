import { useState } from "react";

export interface PairScreenProps {
  busy: boolean;
  message: string | undefined;
  onPair(code: string): void;
}

/** Pairing by a typed code (the #pair= link pairs without this screen's help). */
export function PairScreen({ busy, message, onPair }: PairScreenProps) {
  const [code, setCode] = useState("");
  return (
    <main className="pair">
      <h1>Pair this phone</h1>
      <p>
        Run <code>notify relay pair</code> on your computer and scan the QR code, or type the code it shows.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (code.trim() !== "") onPair(code);
        }}
      >
        <label htmlFor="pair-code">Pairing code</label>
        <input
          id="pair-code"
          value={code}
          autoComplete="off"
          autoCapitalize="characters"
          onChange={(event) => setCode(event.target.value)}
        />
        <button type="submit" disabled={busy || code.trim() === ""}>
          Pair
        </button>
      </form>
      {message === undefined ? null : (
        <p className="state" role="status">
          {message}
        </p>
      )}
    </main>
  );
}
