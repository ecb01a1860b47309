import { useEffect, useState } from "react";

/**
 * Seconds left of a wait of `seconds` begun when `seconds` or `from` last changed (give the
 * answer that asked for the wait as `from`, so that a second answer with the same wait starts it
 * again), down to 0; null when there is no wait.
 */
export function useCountdown(seconds: number | null, from?: unknown): number | null {
  const [left, setLeft] = useState<number | null>(seconds);

  useEffect(() => {
    setLeft(seconds);
    if (seconds === null || seconds <= 0) return;
    const until = Date.now() + seconds * 1000;
    const timer = setInterval(() => {
      const now = Math.max(0, Math.ceil((until - Date.now()) / 1000));
      setLeft(now);
      if (now === 0) clearInterval(timer);
    }, 1000);
    return () => clearInterval(timer);
  }, [seconds, from]);

  return left;
}
