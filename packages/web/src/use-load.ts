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

/**
 * A page's change, as every page makes one: runs `work`, puts `done` (or the broker's refusal, in its words) in the
 * page's status line, and reloads what the change touched: after a success, or (`always`) after a refusal too, for
 * pages whose shown state a refused change can leave stale. Resolves true when the change went through.
 */
export function actionRunner(
  setMessage: (text: string) => void,
  reload: () => void,
  reloadAfter: "success" | "always" = "success",
): (work: () => Promise<unknown>, done: string) => Promise<boolean> {
  return async (work, done) => {
    let ok = false;
    try {
      await work();
      setMessage(done);
      ok = true;
    } catch (failure) {
      setMessage(messageOf(failure));
    }
    if (ok || reloadAfter === "always") reload();
    return ok;
  };
}
