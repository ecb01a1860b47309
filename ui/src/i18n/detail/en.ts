/** The message page, its retry guard and the exceptions' decisions. English is the reference. */
export const detailEn = {
  // The message page's heading: the answer first.
  "detail.heading": "Message {id} — {state}: {reason}",
  "detail.heading.plain": "Message {id} — {state}",
  "detail.reason.receipt": "receipt {stat}",
  "detail.reason.receiptErr": "receipt {stat}, error {err}",
  "detail.reason.held": "its number is on the opt-out list",
  "detail.copy": "Copy to a new message",
  "detail.copy.hint": "Opens a new message with the same number, text and kind, to correct before sending.",
  // A message the provider never accepted has no receipt to wait for.
  "statement.network.neverAccepted": "No report: never accepted",
  "statement.network.neverAccepted.explained": "No receipt will come: the provider never accepted this message, so the network has nothing to report on it.",
  // List rows: why a message failed or is held, under its state.
  "messages.row.reason": "Why: {reason}",
  // The retry guard leads with what a retry meets.
  "retry.blocked.title": "It cannot be sent again now",
  "retry.blocked.more": "Also:",
  "retryFact.title.in_flight": "It is already being sent",
  "retryFact.title.opted_out": "Its number is on the opt-out list",
  "retryFact.title.limit_reached": "It has had all the tries its kind allows",
  "retryFact.title.will_fail_again": "Sending it again will fail again",
  "retryFact.title.rejected_by_network": "The network rejected it",
  "retryFact.title.may_arrive_twice": "This message may arrive twice",
  "retryFact.title.expired": "It is too old to send",
  "retryFact.title.not_allowed": "You may not send it again",
  "retry.facts.noteNeeded": "To send it anyway, write why in the note, then confirm.",
  "retry.facts.note": "Required to confirm: why sending it again is right despite the above.",
  "actions.retried.outcome": "Sent again: what became of it is shown above.",
  // The exception page, once decided.
  "exception.decided": "Decided: {what}",
  "exception.decided.none": "Closed without a decision recorded.",
  "receipt.more": "Every other field, the text and the bytes",
} as const;
