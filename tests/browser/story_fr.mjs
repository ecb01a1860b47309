// The office's day in French, written once and played in Chromium (ui.test.mjs) and in the desktop
// window (window.test.mjs), as story.mjs is: a campaign of 10,000 rows imported for tomorrow with
// its three bad rows set aside and downloaded, a message scheduled, a receipt that matched nothing
// settled by picking its message, and the provider connected from the screens — the sandbox SMSC
// run apart, on a port of its own, standing for it.
//
// Besides the verbs of story.mjs, the adapter gives `select(sel, value)`, `setValue(sel, value)`
// (for the app's own date-time field, which reads `YYYY-MM-DDTHH:MM` as typed) and, where
// the engine can save a file without a native dialog, `download(sel)` → the file's text.

import assert from "node:assert/strict";

import { attachGhostReceipt, eventually, openSection, tid } from "./story.mjs";

/** The campaign: 10,000 rows, of which lines 101, 5002 and 9999 are refused, each for its own reason. */
export function campaignCsv() {
  const lines = ["destination,text,kind"];
  for (let i = 0; i < 10_000; i++) {
    const line = i + 2;
    if (line === 101) lines.push("06 12 34,Promo de décembre : -20 % sur tout le magasin,bulk");
    else if (line === 5002) lines.push("+33612345600,,bulk");
    else if (line === 9999) lines.push("+33612345600,Promo de décembre,sometimes");
    else lines.push(`+3361${String(2_000_000 + i).padStart(7, "0")},Promo de décembre : -20 % sur tout le magasin,bulk`);
  }
  return `${lines.join("\n")}\n`;
}
export const CAMPAIGN_BAD_LINES = ["101", "5002", "9999"];

/** The screens in French: the browser's language already, or chosen in the app's Display menu. */
export async function inFrench(ui) {
  if ((await ui.attr("html", "lang")) !== "fr") await ui.select(tid("display-language"), "fr");
  await eventually("the screens are in French", async () => (await ui.attr("html", "lang")) === "fr");
  assert.equal(await ui.text(tid("nav-messages")), "Messages");
  assert.match(await ui.text(tid("nav-settings")), /^Réglages/);
}

/** Tomorrow at 09:00 in the operator's zone, as the app's date-time field reads it typed. */
function tomorrowAtNine() {
  const d = new Date(Date.now() + 86_400_000);
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T09:00`;
}

/**
 * A 10,000-row campaign for tomorrow: the dialog counts 9,997 ready and 3 with errors, lists only
 * those, each worded in French; the rejected rows download as a CSV that names them; Import queues
 * the others, scheduled (not sent now).
 */
export async function importCampaign(ui, file) {
  await openSection(ui, "messages");
  if ((await ui.count(tid("messages-tab-import"))) > 0) await ui.click(tid("messages-tab-import"));
  await ui.setValue(tid("import-when"), tomorrowAtNine());
  await ui.setFile(tid("import-file"), file);
  await ui.waitFor(tid("import-dialog"));
  await ui.waitFor(tid("import-rows"), 120_000);
  const counts = await ui.text(tid("import-counts"));
  assert.match(counts, /9\s?997/, `9,997 rows ready: ${counts}`);
  assert.equal(await ui.count(tid("import-row")), 3, "only the three bad rows are listed");
  for (const line of CAMPAIGN_BAD_LINES) await ui.waitFor(tid("import-row", `[data-line="${line}"]`));
  const noCountry = await ui.text(tid("import-row", '[data-line="101"]'));
  assert.doesNotMatch(noCountry, /not a phone number|required|is not/i, `the reason is in French: ${noCountry}`);
  if (ui.download) {
    const rejected = await ui.download(tid("import-download-rejected"));
    const rows = rejected.trim().split(/\r?\n/);
    assert.equal(rows.length, 4, `a header and the three rejected rows:\n${rejected}`);
    assert.match(rows[0], /^line,reason,destination,text,kind$/);
    assert.deepEqual(rows.slice(1).map((r) => r.split(",")[0]), CAMPAIGN_BAD_LINES);
  } else {
    assert.match(await ui.text(tid("import-download-rejected")), /3/, "the rejected rows are offered as a file");
  }
  await ui.screenshot("fr-csv-import.png", { fullPage: false });
  await ui.click(tid("import-submit"));
  await ui.waitFor(tid("import-done"), 180_000);
  assert.match(await ui.text(tid("import-done")), /9\s?997/, "9,997 messages queued");
}

/** A receipt that matched no message, settled by picking its message, on French screens. */
export async function pickTheGhostsMessage(ui) {
  const id = await attachGhostReceipt(ui);
  assert.equal(await ui.attr("html", "lang"), "fr");
  return id;
}

/**
 * The provider connected from the screens by an admin: from the sandbox banner to the guide, the
 * address of the SMSC run apart, an account, the test (which binds there, not to the built-in
 * sandbox), then the switch; the link comes up on it.
 */
export async function connectProvider(ui, port) {
  await openSection(ui, "dashboard");
  await ui.click(tid("sandbox-banner-connect"));
  await ui.waitFor(tid("connect-guide"));
  await ui.fill(tid("connect-smpp.host"), "127.0.0.1");
  await ui.fill(tid("connect-smpp.port"), String(port));
  await ui.fill(tid("connect-smpp.system_id"), "cabinet");
  await ui.fill(tid("connect-smpp.password"), "secret12".slice(0, 8));
  await ui.fill(tid("connect-smpp.source_addr"), "Cabinet");
  await ui.click(tid("connect-test"));
  const result = tid("connect-test-result");
  await ui.waitFor(result, 30_000);
  assert.equal(await ui.attr(result, "data-outcome"), "bound", await ui.text(result));
  assert.match(await ui.text(result), new RegExp(`127\\.0\\.0\\.1:${port}`), "the test bound to the address typed, not the built-in sandbox");
  await ui.accessible?.("the provider guide");
  await ui.screenshot("fr-connect-provider.png");
  await ui.click(tid("connect-switch"));
  await ui.waitFor(tid("connect-outcome"), 30_000);
  await eventually("the link is bound to the provider", async () => (await ui.attr(tid("connect-link-state"), "data-state")) === "bound", 60_000);
}

/**
 * The sandbox SMSC in a process of its own, standing for the office's provider: `smsdesk
 * sandbox-smsc` on a free port, which it names once it listens.
 */
export async function startSandboxSmsc(bin) {
  const { spawn } = await import("node:child_process");
  const child = spawn(bin, ["sandbox-smsc", "--port", "0"], { stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  const heard = (chunk) => (output += chunk);
  child.stdout.setEncoding("utf8").on("data", heard);
  child.stderr.setEncoding("utf8").on("data", heard);
  const port = await eventually(
    "the sandbox SMSC names its port",
    () => {
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(output);
      return m ? Number(m[1]) : undefined;
    },
    30_000,
  );
  return { child, port };
}

/**
 * A message scheduled for tomorrow from the compose form, with the date picker in the operator's
 * zone: queued, waiting for its time, and saying when it goes.
 */
export async function scheduleMessage(ui) {
  await openSection(ui, "messages");
  if ((await ui.count(tid("messages-tab-new"))) > 0) await ui.click(tid("messages-tab-new"));
  await ui.fill(tid("send-destination"), "+33 6 12 34 56 00");
  await ui.fill(tid("send-text"), "Rappel : votre rendez-vous est demain à 10 h.");
  await ui.setValue(tid("send-later"), tomorrowAtNine());
  await ui.click(tid("send-submit"));
  await ui.waitFor(tid("send-done"), 15_000);
  const id = await ui.attr(tid("send-done"), "data-id");
  await ui.screenshot("fr-schedule.png", { fullPage: false });
  return id;
}
