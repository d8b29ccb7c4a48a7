import { useEffect, useState } from "react";

/** The current time, ticking once a second (the countdowns). */
export function useNow(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

export function remaining(expiresAt: string, nowMs: number): string {
  const seconds = Math.max(0, Math.floor((Date.parse(expiresAt) - nowMs) / 1000));
  const minutes = Math.floor(seconds / 60);
  return `${minutes}:${String(seconds % 60).padStart(2, "0")}`;
}
