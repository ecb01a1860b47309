// The operator's day, second pass: numbers as people type them, templates filled by the engine,
// a pace that counts only what is due, and a retry that says at once why it cannot be. Played by
// the operator after the story of story.mjs (whose first message went to +33612345600, and whose
// number ending in 28 opted out by reply), on an office whose country is France.
//
// Verbs of story.mjs's adapter, plus `select(sel, value)` and `setValue(sel, value)`.

import assert from "node:assert/strict";
import { eventually, openMessage, openSection, tid } from "./story.mjs";

/** The office's country chosen in Settings, as an admin does where setup did not ask it (the window). */
export async function setOfficeCountry(ui, code) {
  await openSection(ui, "settings");
  await ui.waitFor(tid("settings-form"), 20_000);
  await ui.select(tid("setting-intake.default_region"), code);
  await ui.click(tid("settings-save"));
  await ui.waitFor(tid("settings-saved"), 20_000);
}

/** The story's first number (+33 6 12 34 56 00) as an office in France types it. */
export const NATIONAL = "06 12 34 56 00";

/**
 * Messages → phone number "06 12 34 56 00": the messages sent to +33612345600 are found, and only
 * they. The handset at that number answers (the sandbox plays its reply), and the Inbox finds its
 * conversation typed the same way.
 */
export async function findByNationalNumber(ui) {
  await openSection(ui, "messages");
  await ui.fill(tid("filter-destination"), NATIONAL);
  await ui.click(tid("filter-apply"));
  // Until the filtered page is in, the list still shows the page before it (which has these
  // messages among others): wait for the filtered one, then check it.
  await eventually(
    "the list shows the messages sent to +33612345600, and no message to another number",
    async () =>
      (await ui.count(tid("message-row", '[data-destination="+33612345600"]'))) > 0 &&
      (await ui.count(tid("message-row", ':not([data-destination="+33612345600"])'))) === 0,
  );
  assert.equal(await ui.count(tid("filter-destination-error")), 0, "the number is read, not refused");
  await ui.click(tid("filter-clear"));

  await openSection(ui, "inbox");
  if ((await ui.count(tid("thread-row", '[data-thread="+33612345600"]'))) === 0) {
    await ui.fill(tid("simulate-from"), "+33612345600");
    await ui.fill(tid("simulate-text"), "Merci, bien reçu.");
    await ui.click(tid("simulate-submit"));
    await ui.waitFor(tid("simulate-done"), 15_000);
  }
  await ui.fill(tid("inbox-search-q"), NATIONAL);
  await ui.click(tid("inbox-search-submit"));
  await eventually(
    "the Inbox finds the conversation with +33612345600, and no other conversation",
    async () =>
      (await ui.count(tid("thread-row", '[data-thread="+33612345600"]'))) === 1 &&
      (await ui.count(tid("thread-row", ':not([data-thread="+33612345600"])'))) === 0,
  );
  assert.equal(await ui.count(tid("inbox-search-error")), 0);
}

/**
 * A template saved from the form, then sent with one of its two values left empty: the engine
 * refuses it, naming the placeholder at its field; filled, it is sent as the engine filled it.
 */
export async function templateFilledOrRefused(ui) {
  await openSection(ui, "messages");
  await ui.click(tid("messages-tab-new"));
  await ui.fill(tid("send-text"), "Bonjour {name}, votre rendez-vous est le {date}.");
  await ui.click(tid("template-save-open"));
  await ui.fill(tid("template-name"), "Rendez-vous");
  await ui.click(tid("template-save"));
  await ui.waitFor(tid("template-done"));
  const id = await eventually("the template is offered", async () => {
    const options = await ui.count(`${tid("template-picker")} option`);
    return options > 1 ? ui.attr(`${tid("template-picker")} option:last-child`, "value") : undefined;
  });
  await ui.select(tid("template-picker"), id);
  await ui.waitFor(tid("send-template"));
  await ui.fill(tid("send-destination"), NATIONAL);
  await ui.fill(tid("send-value", '[data-name="name"]'), "Mme Martin");
  await ui.click(tid("send-submit"));
  if ((await ui.count(tid("send-unfilled-send"))) > 0) await ui.click(tid("send-unfilled-send"));
  await ui.waitFor(tid("send-value-problem", '[data-name="date"]'));
  assert.match(await ui.text(tid("send-value-problem", '[data-name="date"]')), /date/, "the refusal names the placeholder");
  assert.equal(await ui.count(tid("send-done")), 0, "nothing was queued");
  await ui.fill(tid("send-value", '[data-name="date"]'), "12 mars à 10 h");
  await ui.click(tid("send-submit"));
  await ui.waitFor(tid("send-done"));
  const message = await ui.attr(tid("send-done"), "data-id");
  await ui.click(tid("messages-tab-list"));
  await openMessage(ui, message);
  assert.match(await ui.text(tid("message-body")), /^Bonjour Mme Martin, votre rendez-vous est le 12 mars à 10 h\.$/, "sent as the engine filled it");
  return message;
}

/** Tomorrow at 09:30, as a date field takes it (YYYY-MM-DDTHH:MM, local time). */
function tomorrowAtHalfPastNine() {
  const d = new Date();
  d.setDate(d.getDate() + 1);
  const two = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T09:30`;
}

/**
 * A message scheduled for tomorrow: the dashboard's pace counts it apart, as scheduled with its
 * time, and not among the messages due (whose time left is 0 once the rest went out); its row in
 * Messages says it is scheduled.
 */
export async function scheduledIsNotInThePace(ui) {
  await openSection(ui, "messages");
  await ui.click(tid("messages-tab-new"));
  await ui.fill(tid("send-destination"), NATIONAL);
  await ui.fill(tid("send-text"), "Rappel : votre rendez-vous est demain à 9 h 30.");
  await ui.setValue(tid("send-later"), tomorrowAtHalfPastNine());
  await ui.click(tid("send-submit"));
  await ui.waitFor(tid("send-done"));
  const id = await ui.attr(tid("send-done"), "data-id");
  await openSection(ui, "dashboard");
  await eventually("the pace shows the scheduled message apart", async () => Number(await ui.attr(tid("pace-scheduled"), "data-count")) >= 1, 30_000);
  const next = Number(await ui.attr(tid("pace-scheduled"), "data-next"));
  assert.ok(next > Date.now() + 60_000, "its next time is tomorrow's, not now");
  await eventually("nothing due is counted once the rest went out", async () => (await ui.attr(tid("pace"), "data-queued")) === "0", 30_000);
  assert.doesNotMatch(await ui.text(tid("pace")), /second|minute/, "no time left is promised for a message due tomorrow");
  await openSection(ui, "messages");
  const row = tid("message-row", `[data-id="${id}"]`);
  await eventually("the message's row says it is scheduled", async () => (await ui.count(`${row} ${tid("message-scheduled")}`)) === 1, 30_000);
  assert.equal(await ui.attr(row, "data-status"), "queued", "it waits in the queue, not sent");
  return id;
}

/** Retrying the message sent to a number that opted out since: the panel says so at once, and asks nothing. */
export async function retryOptedOutSaysWhyAtOnce(ui, id) {
  await openMessage(ui, id);
  await ui.click(tid("retry-open"));
  await ui.waitFor(tid("retry-fact-blocked"));
  assert.equal(await ui.attr(tid("retry-fact-blocked"), "data-code"), "opted_out", "the blocking fact leads");
  assert.equal(await ui.count(tid("retry-note")), 0, "no note is asked for a retry that cannot be");
  assert.equal(await ui.count(`button${tid("retry-submit")}, button${tid("retry-facts-confirm")}`), 0, "and nothing to send");
  await ui.click(tid("retry-close"));
}
