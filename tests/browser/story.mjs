// The operator's story, written once and played in two browser engines: Chromium on the UI that
// `smsdesk serve` serves (ui.test.mjs), and WebKitGTK in the real desktop window through
// tauri-driver (window.test.mjs). Each engine hands in a small adapter (`ui`) with the same verbs:
//
//   click(sel)  fill(sel, text)  check(sel)  setFile(sel, path)  waitFor(sel, ms?)  count(sel)
//   text(sel)  attr(sel, name)  screenshot(name, {fullPage, element}?)  accessible?(what) (where axe-core runs)
//
// Selectors are CSS, nearly always a data-testid. The story talks to the sandbox SMSC, whose
// behaviour follows the last two digits of the destination (see docs/sandbox.md).

import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";

export const tid = (id, more = "") => `[data-testid="${id}"]${more}`;

/** In a message's timeline: one item per try, and one per receipt as received. */
const ATTEMPTS = tid("timeline-item", '[data-kind="attempt"]');
const RECEIPTS = tid("timeline-item", '[data-kind="receipt"]');

/** Polls `probe` until it returns a value other than undefined/false, or fails naming `what`. */
export async function eventually(what, probe, ms = 20_000) {
  const deadline = Date.now() + ms;
  let last;
  for (;;) {
    try {
      last = await probe();
      if (last !== undefined && last !== false && last !== null) return last;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      const seen = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`${what}: not seen within ${ms / 1000} s (last seen: ${seen})`);
    }
    await sleep(150);
  }
}

/** Opens a section from the navigation, as a person would. */
export async function openSection(ui, section) {
  await ui.click(tid(`nav-${section}`));
  await eventually(`the ${section} section is the current one`, async () => (await ui.attr(tid(`nav-${section}`), "aria-current")) === "page");
}

/** Sends one message from the compose form and returns its id as the engine answered it. */
export async function compose(ui, destination, text) {
  await openSection(ui, "messages");
  await ui.click(tid("messages-tab-new"));
  const before = (await ui.count(tid("send-done"))) > 0 ? await ui.attr(tid("send-done"), "data-id") : null;
  await ui.fill(tid("send-destination"), destination);
  await ui.fill(tid("send-text"), text);
  await ui.click(tid("send-submit"));
  const id = await eventually("the form names the queued message", async () => {
    if ((await ui.count(tid("send-done"))) === 0) return undefined;
    const id = await ui.attr(tid("send-done"), "data-id");
    return id !== before && /^\d+$/.test(id ?? "") ? id : undefined;
  });
  await ui.click(tid("messages-tab-list"));
  return id;
}

/** Opens a message's detail from the list. */
export async function openMessage(ui, id) {
  await openSection(ui, "messages");
  const row = tid("message-row", `[data-id="${id}"]`);
  await ui.waitFor(row);
  // A row opens from any of its cells (WebDriver clicks cells, not table rows).
  await ui.click(`${row} ${tid("message-destination")}`);
  await ui.waitFor(tid("message-detail", `[data-id="${id}"] ${tid("statement-network")}`));
}

/** Step 1: a message to the sandbox reaches "reported delivered", shown by live updates only. */
export async function sendAndWatchDelivered(ui) {
  const id = await compose(ui, "+33 6 12 34 56 00", "Your order 4711 has shipped");
  const row = tid("message-row", `[data-id="${id}"]`);
  await ui.waitFor(row);
  await ui.waitFor(tid("message-row", `[data-id="${id}"][data-state="delivered"]`), 30_000);
  assert.equal(await ui.text(`${row} ${tid("message-destination")}`), "+33612345600", "the list shows the number as normalised");

  await openMessage(ui, id);
  const network = tid("statement-network");
  assert.equal(await ui.attr(network, "data-state"), "delivered");
  const says = await ui.text(tid("statement-network-state"));
  assert.match(says, /^Reported delivered/i, `the detail must say the network *reported* delivery, not "${says}"`);
  assert.doesNotMatch(says, /\bread\b/i, "a receipt never proves a message was read");
  assert.equal(await ui.attr(tid("statement-queue"), "data-status"), "accepted");
  assert.equal(await ui.count(ATTEMPTS), 1, "one attempt: accepted by the SMSC");
  assert.equal(await ui.count(RECEIPTS), 1, "one receipt: DELIVRD");
  await ui.screenshot("message-detail.png");
  return id;
}

/**
 * Step 2: the sandbox reports DELIVRD then UNDELIV for one message. The first final stays, the
 * message is flagged, and one conflict waits in the queue; the operator resolves it with a note.
 */
export async function resolveConflict(ui) {
  const id = await compose(ui, "+33 6 12 34 56 07", "Appointment reminder: Tuesday 10:30");
  await openSection(ui, "exceptions");
  const row = tid("exception-row", `[data-message-id="${id}"][data-kind="conflicting_final"]`);
  await ui.waitFor(row, 30_000);
  assert.equal(await ui.count(tid("exception-row", `[data-message-id="${id}"]`)), 1, "two incompatible finals open exactly one exception");
  assert.equal(await ui.attr(row, "data-status"), "open");
  await ui.accessible?.("the exception queue, with its checkboxes");
  await ui.screenshot("exceptions.png");

  // Before anyone decides: the first final stands, the message is flagged, both receipts are kept.
  await openMessage(ui, id);
  assert.equal(await ui.attr(tid("statement-network"), "data-state"), "delivered", "the first final the network reported stands");
  await ui.waitFor(tid("flag", '[data-flag="conflict"]'));
  assert.equal(await ui.count(RECEIPTS), 2, "both receipts are kept as evidence");

  // "Decide…" beside the conflict leads to its exception.
  await ui.click(`${tid("flag", '[data-flag="conflict"]')} ${tid("flag-decide")}`);
  await ui.waitFor(tid("resolve-form"));
  assert.equal(await ui.count(tid("evidence-item")), 2, "both receipts are shown side by side");
  assert.equal(await ui.count(`${tid("resolve-form")} input[name="action"]:checked`), 0, "no decision is chosen for the operator");
  assert.match(await ui.text(tid("resolve-blocked")), /decision/i, "the button says a decision must be chosen");
  await ui.click(tid("resolve-action-choose_state"));
  await ui.click(`${tid("resolve-state")}[value="undeliverable"]`);
  await ui.waitFor(tid("resolve-blocked"));
  assert.notEqual(await ui.attr(tid("resolve-submit"), "disabled"), null, "resolving is not possible before a note is written");
  assert.match(await ui.text(tid("resolve-blocked")), /note/i, "a resolution cannot go without a note");
  await ui.fill(tid("resolve-note"), "Customer called: the phone was switched off all day");
  await ui.screenshot("exception-detail.png");
  await ui.click(tid("resolve-submit"));
  await ui.waitFor(tid("resolve-done"));
  await ui.waitFor(tid("resolution"));
  assert.match(await ui.text(tid("resolution")), /Customer called: the phone was switched off all day/);

  // The operator's decision sits beside the network's report; the evidence is unchanged.
  await openMessage(ui, id);
  assert.equal(await ui.attr(tid("statement-network"), "data-state"), "delivered", "what the network reported is not rewritten");
  await ui.waitFor(tid("statement-operator"));
  assert.match(await ui.text(tid("statement-operator-state")), /undeliverable/i);
  assert.equal(await ui.count(RECEIPTS), 2, "both receipts stay as evidence");
  assert.equal(await ui.count(tid("flag", '[data-flag="conflict"]')), 0, "the conflict is decided: the flag is down");
  return id;
}

/** Step 3: the SMSC refuses a destination for good; the operator retries it by hand. */
export async function retryFailed(ui) {
  const id = await compose(ui, "+33 6 12 34 56 13", "Your table is ready");
  await openSection(ui, "messages");
  await ui.waitFor(tid("message-row", `[data-id="${id}"][data-status="failed"]`), 30_000);
  await openMessage(ui, id);
  assert.equal(await ui.attr(tid("statement-queue"), "data-status"), "failed");
  assert.equal(await ui.count(ATTEMPTS), 1, "a permanent refusal is not retried by itself");
  await ui.click(tid("retry-open"));
  // Refused for good: before any note is asked, the panel says a retry will fail again, and why.
  await ui.waitFor(tid("retry-fact-confirm"));
  assert.equal(await ui.attr(tid("retry-fact-confirm"), "data-code"), "will_fail_again");
  assert.match(await ui.text(tid("retry-fact-confirm")), /ESME_RINVDSTADR/, "the refusal is named");
  await ui.fill(tid("retry-note"), "Number corrected by the customer on the phone");
  await ui.screenshot("retry-guard.png", { fullPage: false });
  await ui.click(tid("retry-facts-confirm"));
  await ui.waitFor(tid("action-done"));
  await eventually("a second attempt appears in the timeline", async () => (await ui.count(ATTEMPTS)) === 2, 30_000);
  await eventually(
    "the retried message has been refused again by the sandbox",
    async () => (await ui.attr(tid("statement-queue"), "data-status")) === "failed",
    30_000,
  );
  return id;
}

/**
 * Step 4: a CSV file with two good rows and one bad one, checked in a dialog that lists only the
 * bad row (named, and offered as a file of rejected rows); the good ones are queued on Import.
 */
export async function importCsv(ui, file) {
  await openSection(ui, "messages");
  await ui.click(tid("messages-tab-import"));
  await ui.setFile(tid("import-file"), file);
  await ui.waitFor(tid("import-dialog"));
  await ui.waitFor(tid("import-rows"), 30_000);
  assert.match(await ui.text(tid("import-counts")), /\b2\b.*\b1\b/, "two rows ready, one with errors");
  assert.equal(await ui.count(tid("import-row")), 1, "only the row with errors is listed");
  const bad = tid("import-row", '[data-line="4"]');
  assert.match(await ui.text(bad), /phone number/i, "the bad row says which field is wrong, in words");
  assert.match(await ui.text(bad), /not-a-number/, "and shows the line as written");
  await ui.waitFor(tid("import-download-rejected"));
  await ui.accessible?.("the import dialog");
  await ui.screenshot("csv-import.png", { fullPage: false });
  await ui.click(tid("import-submit"));
  await ui.waitFor(tid("import-done"), 30_000);
  assert.match(await ui.text(tid("import-done")), /\b2\b/, "two messages queued");
  await ui.click(tid("messages-tab-list"));
  for (const destination of ["+33612345600", "+33612345604"]) {
    await eventually(
      `the imported message to ${destination} is delivered`,
      async () => (await ui.count(tid("message-row", `[data-state="delivered"]`))) > 0 && (await ui.text(tid("messages-table"))).includes(destination),
      30_000,
    );
  }
}

/**
 * Step 5: a message in three parts whose part 2 the network reports undeliverable (sandbox 22):
 * reported delivered in part, each part's state listed, the timeline read part by part.
 */
export async function longMessageInParts(ui) {
  const text = "Your appointment on Tuesday at 10:30 is confirmed. Please bring your card and arrive early. ".repeat(4);
  const id = await compose(ui, "+33 6 12 34 56 22", text.trim());
  await openSection(ui, "messages");
  await ui.waitFor(tid("message-row", `[data-id="${id}"][data-state="partially_delivered"]`), 30_000);
  await openMessage(ui, id);
  await ui.waitFor(tid("network-parts"));
  await eventually(
    "every part has its receipt",
    async () => (await ui.attr(`${tid("network-parts")} li[data-part="3"]`, "data-state")) === "delivered",
    30_000,
  );
  assert.equal(await ui.attr(`${tid("network-parts")} li[data-part="2"]`, "data-state"), "undeliverable");
  assert.match(await ui.text(tid("statement-network-state")), /in part/i, "one part undeliverable: not delivered, delivered in part");
  assert.equal(await ui.count(tid("timeline-group")), 4, "the whole message, then each of its three parts");
  assert.equal(await ui.count(tid("flag", '[data-flag="mismatch"]')), 0, "a part's receipt echoes its own text: no misfit");
  await ui.screenshot("message-parts.png");
  return id;
}

/**
 * Step 6: the SMSC accepts a code without ever answering (sandbox 24), and its receipt comes. The
 * message is held; the receipt, matching nothing, asks a person beside the unanswered try, with
 * the facts that agree; attaching it settles the message as accepted, by that evidence.
 */
export async function attachGhostReceipt(ui) {
  const id = await compose(ui, "+33 6 12 34 56 24", "Your code is 4821");
  await openSection(ui, "messages");
  await ui.waitFor(tid("message-row", `[data-id="${id}"][data-status="outcome_unknown"]`), 30_000);
  await openSection(ui, "exceptions");
  const row = tid("exception-row", '[data-kind="uncorrelated"][data-status="open"]');
  await ui.waitFor(row, 30_000);
  await ui.click(`${row} ${tid("exception-kind")}`);
  await ui.waitFor(tid("candidate", `[data-message="${id}"]`));
  assert.equal(
    await ui.count(`${tid("candidate", `[data-message="${id}"]`)} tr[data-agrees="false"]`),
    0,
    "the number, the text echo and the minute all agree",
  );
  assert.equal(await ui.count(`${tid("resolve-form")} input[name="action"]:checked`), 0, "no decision is chosen for the operator");
  await ui.click(tid("resolve-action-attach"));
  // The picker finds the message sent to the receipt's number and the engine finds every fact
  // agreeing (data-differs is set once its comparison arrives); picking it fills its number.
  const found = tid("picker-candidate", `[data-id="${id}"][data-differs]`);
  await ui.waitFor(found, 15_000);
  assert.equal(await ui.attr(found, "data-differs"), "0", "the picker finds nothing that differs");
  await ui.click(`${found} ${tid("picker-pick")}`);
  await eventually("picking fills the message number", async () => (await ui.attr(tid("resolve-target"), "value")) === id || undefined);
  await ui.fill(tid("resolve-note"), "Same number, same text, submitted the minute the try was written");
  await ui.accessible?.("the message picker");
  await ui.screenshot("exception-candidates.png");
  await ui.click(tid("resolve-submit"));
  await ui.waitFor(tid("resolve-done"));
  await openMessage(ui, id);
  await eventually(
    "the held message is accepted by the receipt's evidence",
    async () => (await ui.attr(tid("statement-queue"), "data-status")) === "accepted",
  );
  assert.equal(await ui.attr(tid("statement-network"), "data-state"), "delivered");
  return id;
}

/** What the sandbox's handset at a number ending in 26 answers, whatever it was sent. */
export const REPLY_26 = "Je ne pourrai pas venir demain, merci de rappeler.";

/** Sends one message from the compose form and returns the refusal the form shows: its code and its words. */
export async function composeRefused(ui, destination, text) {
  await openSection(ui, "messages");
  await ui.click(tid("messages-tab-new"));
  await ui.fill(tid("send-destination"), destination);
  await ui.fill(tid("send-text"), text);
  await ui.click(tid("send-submit"));
  await ui.waitFor(tid("send-error"));
  return { code: await ui.attr(tid("send-error"), "data-code"), text: await ui.text(tid("send-error")) };
}

/**
 * Step 7: the handset at a number ending in 26 answers the message it was delivered. The reply
 * shows in the Inbox (counted in the navigation until it is read), in the conversation with that
 * number, after the message sent to it; opening the conversation reads it.
 */
export async function replyInInbox(ui) {
  const id = await compose(ui, "+33 6 12 34 56 26", "Rappel : votre rendez-vous est demain à 10 h 30.");
  const row = tid("thread-row", '[data-thread="+33612345626"]');
  await eventually(
    "the reply is counted beside Inbox",
    async () => (await ui.count(tid("nav-inbox-count"))) > 0 && Number(await ui.attr(tid("nav-inbox-count"), "data-count")) >= 1,
    30_000,
  );
  await openSection(ui, "inbox");
  await ui.waitFor(row, 30_000);
  assert.equal(await ui.text(`${row} ${tid("thread-last")}`), REPLY_26, "the list shows the latest reply");
  await ui.click(`${row} ${tid("thread-number")}`);
  await ui.waitFor(tid("conversation", '[data-thread="+33612345626"]'));
  const reply = tid("thread-item", '[data-direction="received"]');
  await ui.waitFor(reply, 30_000);
  assert.equal(await ui.text(`${reply} ${tid("bubble-text")}`), REPLY_26);
  const first = `${tid("conversation-lines")} > li:first-child`;
  const last = `${tid("conversation-lines")} > li:last-child`;
  assert.equal(await ui.attr(first, "data-direction"), "sent", "the message sent comes first");
  assert.equal(await ui.attr(first, "data-id"), id, "it is the message just sent");
  assert.equal(await ui.attr(`${first} ${tid("thread-open-message")}`, "href"), `#/messages/${id}`);
  assert.equal(await ui.attr(last, "data-direction"), "received", "its reply after it");
  await eventually("reading the conversation marks the reply read", async () => (await ui.count(tid("nav-inbox-count"))) === 0);
  return id;
}

/**
 * Step 8: the handset at a number ending in 28 answers "Arrêt": the number goes on the opt-out
 * list with that reply as its evidence, and a new message to it is refused before it is queued.
 */
export async function optOutByReply(ui) {
  const id = await compose(ui, "+33 6 12 34 56 28", "Votre colis arrive demain entre 9 h et 12 h.");
  await openSection(ui, "optouts");
  const row = tid("optout-row", '[data-phone="+33612345628"]');
  await ui.waitFor(row, 30_000);
  assert.equal(await ui.attr(row, "data-reason"), "reply");
  assert.equal(await ui.text(`${row} ${tid("optout-reply")}`), "Arrêt", "the reply that asked is the evidence");
  assert.equal(await ui.attr(`${row} ${tid("optout-open-thread")}`, "href"), "#/inbox/%2B33612345628");
  const refused = await composeRefused(ui, "+33 6 12 34 56 28", "Dernière chance : -20 % sur votre prochaine commande !");
  assert.equal(refused.code, "destination_opted_out");
  assert.match(refused.text, /This number is on the opt-out list/, "the refusal says why in plain words");
  return id;
}

/** The file `importCsv` expects: header, two good rows, one row with a destination that is not a number. */
export const CSV_FILE = [
  "destination,text,kind",
  "+33612345600,Imported: your parcel is at the pickup point,transactional",
  "+33612345604,Imported: your parcel is on its way,transactional",
  "not-a-number,Imported: this row must be refused,transactional",
  "",
].join("\n");
