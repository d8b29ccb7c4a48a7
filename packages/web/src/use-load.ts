import { useCallback, useEffect, useState } from "react";
import { ApiError } from "./api/client.js";

/** Loads data for a page; `reload` after a change. Errors become a sentence to show. */
export function useLoad<T>(load: () => Promise<T>): {
  data: T | undefined;
  error: string | undefined;
  reload: () => void;
} {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [round, setRound] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `load` is a fresh closure each render; `round` drives reloads.
  useEffect(() => {
    let live = true;
    load().then(
      (value) => {
        if (!live) return;
        setData(value);
        setError(undefined);
      },
      (failure: unknown) => {
        if (live) setError(messageOf(failure));
      },
    );
    return () => {
      live = false;
    };
  }, [round]);
  return { data, error, reload: useCallback(() => setRound((value) => value + 1), []) };
}

export function messageOf(failure: unknown): string {
  return failure instanceof ApiError ? failure.message : "Could not reach the broker.";
}
