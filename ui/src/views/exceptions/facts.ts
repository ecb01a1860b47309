// How the exception screens show a fact the engine compared (a receipt's against a message's):
// the values as the engine gives them, times in the reader's zone.

import type { FactCheck } from "../../bindings/FactCheck";
import type { Verdict } from "../../bindings/Verdict";
import type { Tone } from "../tones";

export const VERDICT_TONE: Readonly<Record<Verdict, Tone>> = { agrees: "success", differs: "warning", cannot_tell: "neutral" };

/** The receipt's and the message's values of a fact; null where the receipt does not say it. */
export function factValues(f: FactCheck, formatTime: (ms: number) => string): { receipt: string | null; message: string } {
  const receipt = f.receipt_ms !== null ? formatTime(f.receipt_ms) : f.receipt;
  const message = f.message_ms !== null ? formatTime(f.message_ms) : f.message;
  return { receipt, message };
}
