// Guarding the office's money, by an admin, on an instance whose sandbox connection has prices
// (0.05 a part to France, 0.08 elsewhere) and a spend limit of 100 a day, in France: a French text
// with typographic quotes and apostrophes goes as one GSM 7-bit part instead of two UCS-2 ones, its
// cost shown before it is sent; a one-time code to a British number is refused before it is sent,
// then counted on the Guardrails screen; the message's page shows the text as sent and as handed
// in; a small CSV file shows its cost before it is queued; the Guardrails screen shows the refusal,
// the spend against its limit and the spend report.

import assert from "node:assert/strict";
import { eventually, openMessage, openSection, tid } from "./story.mjs";

/** The config the story's instance starts with: prices on the default (sandbox) connection, the office in France, a day's limit. */
export const GUARDRAILS_CONFIG = `[intake]
default_region = "FR"

[guardrails]
spend_day = "100"

[[smpp.prices]]
country = "FR"
price = 0.05

[[smpp.prices]]
country = "*"
price = 0.08
`;

/** The sentence of the issue: two UCS-2 parts as written, one GSM 7-bit part once ’ « » are replaced. */
export const SENTENCE =
  "Bonjour, votre rendez-vous de l’après-midi est confirmé « demain » à 14h30 au cabinet. Merci de prévenir en cas d’absence.";

// A British mobile number. (+447700900123, in the range kept for drama, is no number at all for the
// numbering data: refused as invalid_number before its country is looked at.)
const BRITISH = "+447400123456";

/** A small file: two French numbers and a British one (any country may get a transactional message). */
export const GUARDRAILS_CSV = [
  "destination,text,kind",
  "06 12 34 57 00,Rappel : votre rendez-vous est demain à 9h,transactional",
  "06 12 34 57 04,Rappel : votre rendez-vous est demain à 10h,transactional",
  `${BRITISH},Reminder: your appointment is tomorrow at 11am,transactional`,
  "",
].join("\n");

/** Waits for the compose form's answer to the queued message, and returns its id. */
async function queued(ui, before) {
  return eventually("the form names the queued message", async () => {
    if ((await ui.count(tid("send-done"))) === 0) return undefined;
    const id = await ui.attr(tid("send-done"), "data-id");
    return id !== before && /^\d+$/.test(id ?? "") ? id : undefined;
  });
}

/**
 * The French sentence in the compose form: smart encoding is on, the counter says 2 parts → 1 part
 * with the characters replaced, and the message's cost shows before it is sent. Returns its id.
 */
export async function smartEncodingSavesAPart(ui) {
  await openSection(ui, "messages");
  await ui.click(tid("messages-tab-new"));
  assert.equal(await ui.count(`${tid("send-smart-encoding")}:checked`), 1, "smart encoding is on by default");
  await ui.fill(tid("send-destination"), "06 12 34 57 00");
  await ui.fill(tid("send-text"), SENTENCE);
  await eventually("the counter says what smart encoding saves", async () =>
    (await ui.count(tid("send-smart"))) > 0 ? (await ui.text(tid("send-smart"))) === "2 parts → 1 part: 4 characters replaced (’ « »)" : false,
  );
  assert.match(await ui.text(tid("send-counter")), /^GSM 7-bit · 1 part · /, "the text as sent: one GSM 7-bit part");
  await ui.waitFor(tid("send-cost"));
  assert.equal(await ui.text(tid("send-cost")), "Estimated cost: €0.05", "one part at 0.05 to France");
  await ui.accessible?.("the compose form with its counter and cost");
  await ui.screenshot("compose-smart-encoding.png", { element: tid("send-form") });
  const before = (await ui.count(tid("send-done"))) > 0 ? await ui.attr(tid("send-done"), "data-id") : null;
  await ui.click(tid("send-submit"));
  return queued(ui, before);
}

/**
 * A one-time code to a British number: refused before it is sent (the office sends codes to France
 * only, its own country), then refused by the engine when sent anyway; nothing is stored.
 */
export async function otpToBritainRefused(ui) {
  await openSection(ui, "messages");
  await ui.click(tid("messages-tab-new"));
  await ui.select(tid("send-kind"), "otp");
  await ui.fill(tid("send-destination"), BRITISH);
  await ui.fill(tid("send-text"), "Votre code : 731904");
  await ui.waitFor(tid("send-destination-errors"), 15_000);
  assert.equal(
    await ui.text(tid("send-destination-errors")),
    "One-time codes are not sent to GB: the office sends them only to the countries of its guardrails (guardrails.otp_countries).",
  );
  assert.equal(await ui.count(tid("send-cost")), 0, "no cost for a message that would be refused");
  await ui.screenshot("compose-country-refused.png", { element: tid("send-form") });
  await ui.click(tid("send-submit"));
  await ui.waitFor(tid("send-error"), 15_000);
  assert.equal(await ui.attr(tid("send-error"), "data-code"), "country_not_allowed");
  await ui.select(tid("send-kind"), "transactional");
}

/** A few more messages, to France and abroad, so that the spend has lines. */
export async function aFewMessages(ui) {
  await openSection(ui, "messages");
  await ui.click(tid("messages-tab-new"));
  const ids = [];
  for (const [destination, text] of [
    ["06 12 34 57 08", "Votre ordonnance est prête à la pharmacie."],
    [BRITISH, "Your prescription is ready at the pharmacy."],
  ]) {
    const before = (await ui.count(tid("send-done"))) > 0 ? await ui.attr(tid("send-done"), "data-id") : null;
    await ui.fill(tid("send-destination"), destination);
    await ui.fill(tid("send-text"), text);
    await ui.waitFor(tid("send-cost"), 15_000);
    await ui.click(tid("send-submit"));
    ids.push(await queued(ui, before));
  }
  return ids;
}

/** The message's page: the text as sent and as handed in, the characters replaced, and its cost. */
export async function bothTextsOnTheMessage(ui, id) {
  await openMessage(ui, id);
  await ui.waitFor(tid("message-text-as-given"));
  assert.equal(await ui.text(tid("message-text-as-given")), SENTENCE);
  const sent = await ui.text(tid("message-body"));
  assert.ok(!/[’«»]/.test(sent), `the text as sent has none of ’ « »: ${sent}`);
  assert.equal(await ui.text(tid("message-smart")), "Smart encoding replaced ’ « » so that the text costs fewer parts.");
  assert.equal(await ui.text(tid("detail-parts")), "1");
  await eventually("the cost shown in euros", async () => (await ui.text(tid("detail-cost"))) === "€0.05");
  await ui.accessible?.("a message sent with smart encoding");
  await ui.screenshot("message-smart-encoding.png", { element: tid("message-header") });
}

/** A small CSV file: its check shows each row's cost and the total before anything is queued; then imported. */
export async function importShowsItsCost(ui, file) {
  await openSection(ui, "messages");
  await ui.click(tid("messages-tab-import"));
  await ui.setFile(tid("import-file"), file);
  await ui.waitFor(tid("import-dialog"));
  await ui.waitFor(tid("import-cost"), 30_000);
  assert.match(await ui.text(tid("import-counts")), /^3 ready, 0 with errors$/);
  // 0.05 + 0.05 to France, 0.08 to Great Britain.
  assert.match(await ui.text(tid("import-cost")), /^Estimated cost of the ready rows: €0\.180?$/);
  const costs = [];
  for (const line of ["2", "3", "4"]) costs.push(await ui.text(`${tid("import-preview-row", `[data-line="${line}"]`)} ${tid("import-preview-cost")}`));
  assert.deepEqual(
    costs.map((c) => c.replace(/0+$/, "")),
    ["€0.05", "€0.05", "€0.08"],
  );
  await ui.accessible?.("the import dialog with its costs");
  await ui.screenshot("csv-import-cost.png", { fullPage: false });
  await ui.click(tid("import-submit"));
  await ui.waitFor(tid("import-done"), 30_000);
}

/** The Guardrails screen: the refused code counted for Great Britain, the spend against its limit, the report. */
export async function guardrailsScreen(ui) {
  await openSection(ui, "guardrails");
  await ui.waitFor(tid("guardrails-counts"), 15_000);
  const gb = `${tid("guardrails-by-country")} ${tid("guardrails-count", '[data-key="GB"]')}`;
  await eventually("the British code counted as refused", async () => (await ui.count(gb)) > 0, 15_000);
  assert.equal(await ui.attr(`${gb} td[data-reason="country_not_allowed"]`, "data-count"), "1");
  assert.equal(await ui.text(tid("guardrails-setting-otp-countries")), "FR");
  assert.equal(await ui.text(tid("guardrails-setting-day-limit")), "€100.00");
  const today = await ui.text(tid("spend-day"));
  assert.match(today, /^Today€\d+\.\d+ of €100\.00$/, `today's spend against the limit: ${today}`);
  assert.notEqual(today, "Today€0.00 of €100.00", "the messages sent count");
  await eventually("the spend report has its lines", async () => (await ui.count(tid("spend-line"))) > 0, 15_000);
  assert.match(await ui.text(tid("spend-total")), /: €\d+\.\d+$/);
  assert.ok((await ui.count(tid("spend-line", '[data-country="GB"]'))) > 0, "a line for Great Britain");
  const csv = await ui.download?.(tid("spend-csv"));
  if (csv !== undefined) assert.match(csv, /^Day,API key or sender,Connection,Country,Messages,Parts,Cost,Currency\r\n/);
  await ui.accessible?.("the Guardrails screen");
  await ui.screenshot("guardrails.png");
}

/** The dashboard shows the spend too, with the way to the Guardrails screen. */
export async function spendOnTheDashboard(ui) {
  await openSection(ui, "dashboard");
  await ui.waitFor(tid("dashboard-spend"), 15_000);
  assert.match(await ui.text(tid("dashboard-spend")), /Today€\d+\.\d+ of €100\.00/);
}
