// Every screen at phone width (390×844) and in a desktop window (1366×768), in English, French and
// Russian, against the real server binary in `serve` mode, in headless Chromium:
//
//   SMSDESK_BIN=path/to/smsdesk [CHROMIUM=path/to/chromium] [UI_DIR=ui/dist] [LANGUAGES=en,fr] node --test layout.mjs
//
// UI_DIR serves the UI's files from that folder instead of the binary's (the API still answers
// from the binary): a change of style is measured after `npx vite build` alone.
//
// On each screen: the page does not scroll sideways; no label, heading, badge, button or field
// overlaps another of the same card; none runs out of its card; and axe-core finds no WCAG A or AA
// problem. The server starts on a fresh data folder (the setup screen is measured first), then
// holds a few messages of each outcome the sandbox plays, exceptions, replies, an opt-out, an
// alert firing beside one that ended, and an SMPP account whose client is bound to smsdesk's own
// SMPP server (on the dashboard's card). Settings is measured again with a connection added and
// switched to TLS, its fields shown.

import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { chromium } from "playwright-core";
import axe from "axe-core";

import { CHROMIUM_ARGS, serveUiFrom, startServe } from "./serve.mjs";
import { layoutProblems } from "./layout_checks.mjs";
import { bindAsPbx } from "./story_smpp.mjs";

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 768 };
const LANGUAGES = [
  ["en", "en-US"],
  ["fr", "fr-FR"],
  ["ru", "ru-RU"],
].filter(([language]) => (process.env.LANGUAGES ?? language).split(",").includes(language));
const ADMIN = { name: "Alice", password: "alice's long password" };
/** smsdesk's own SMPP server on, on a port the system picks: its card on the dashboard, its accounts on the API keys screen. */
const CONFIG = `[smpp_server]
enabled = true
port = 0
`;
/** What each message's last two digits make the sandbox do (docs/sandbox.md). */
const SANDBOX = { delivered: "00", undelivered: "01", rejected: "03", conflict: "07", ghost: "08", badNumber: "13", stop: "25", reply: "26" };

/** A browser context in `locale`; with UI_DIR, its pages get the UI's files from there. */
async function newContext(browser, server, options) {
  const context = await browser.newContext(options);
  // What went wrong in a page is a problem of the screen it was on.
  context.on("page", (page) => {
    page.on("pageerror", (error) => page.errors.push(`uncaught exception: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error" && !/status of 401/.test(message.text())) page.errors.push(`console error: ${message.text()}`);
    });
    page.errors = [];
  });
  await serveUiFrom(context, server.url);
  return context;
}

/** A request made by the page, with its session and CSRF token. */
function fromPage(page, method, url, body) {
  return page.evaluate(
    async ({ method, url, body }) => {
      const me = await (await fetch("/api/v1/me")).json().catch(() => ({}));
      const response = await fetch(url, {
        method,
        headers: { "Content-Type": "application/json", "X-CSRF-Token": me.csrf_token ?? "" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json().catch(() => null) };
    },
    { method, url, body },
  );
}

async function eventually(what, probe, ms = 30_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await probe().catch(() => undefined);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`${what}: not seen within ${ms / 1000} s`);
    await sleep(200);
  }
}

/** axe-core's WCAG 2.x A and AA rules, and the check that a control's name holds its visible words. */
async function axeProblems(page) {
  const violations = await page.evaluate(async (source) => {
    if (window.axe === undefined) (0, eval)(source);
    const result = await window.axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
      rules: { "label-content-name-mismatch": { enabled: true } },
    });
    return result.violations.map((v) => ({ id: v.id, targets: v.nodes.map((n) => n.target.join(" ")) }));
  }, axe.source);
  return violations.flatMap((v) => v.targets.map((t) => `axe ${v.id}: ${t}`));
}

/** Waits until nothing on the page says it is loading, then opens every disclosure so that it is measured too. */
async function settled(page) {
  await page
    .waitForFunction(() => document.querySelector('[aria-busy="true"], .spinner') === null, null, { timeout: 10_000 })
    .catch(() => {});
  await page.locator("details:not([open]) > summary").evaluateAll((all) => all.forEach((s) => s.click()));
  await page.evaluate(() => document.fonts.ready);
  await sleep(150);
}

/** Measures the page as it is now at `size`, and runs axe on it. Each problem is prefixed with where it was seen. */
async function measure(page, where, size) {
  await page.setViewportSize(size);
  await sleep(100);
  const found = page.errors.splice(0);
  // A blank or broken screen would pass every check: each must show its heading.
  if ((await page.locator("main h1, main h2").count()) === 0) found.push(`no heading shown; the page says: ${(await page.locator("body").innerText()).slice(0, 200)}`);
  found.push(...(await page.evaluate(layoutProblems)));
  found.push(...(await axeProblems(page)));
  return found.map((p) => `${where} at ${size.width}: ${p}`);
}

/** The places of the signed-in app an admin visits, by name and address. */
function places(ids) {
  return [
    ["dashboard", "#/dashboard"],
    ["reports", "#/reports?period=7d&by=connection,outcome"],
    ["messages", "#/messages"],
    ["messages opened from a report", "#/messages?connection=sandbox&outcome=failed,expired"],
    ["a failed message", `#/messages/${ids.failed}`],
    ["a message in conflict", `#/messages/${ids.conflict}`],
    ["compose", "#/messages/new"],
    ["import", "#/messages/import"],
    ["exceptions", "#/exceptions"],
    ["an exception", `#/exceptions/${ids.exception}`],
    ["an unmatched receipt", `#/exceptions/${ids.unmatched}`],
    ["alerts", "#/alerts"],
    ["guardrails", "#/guardrails"],
    ["inbox", "#/inbox"],
    ["a conversation", `#/inbox/${encodeURIComponent(ids.thread)}`],
    ["opt-outs", "#/opt-outs"],
    ["audit log", "#/audit"],
    ["API keys", "#/keys"],
    ["accounts", "#/accounts"],
    ["settings", "#/settings"],
    ["personal data", "#/privacy"],
    ["connect a provider", "#/settings/connect"],
    ["about", "#/about"],
    ["change password", "#/password"],
  ];
}

/** Messages of each outcome, replies, an opt-out, an operator and a key: something on every screen. */
async function seed(page) {
  const number = (end) => `+336123456${end}`;
  const ids = {};
  for (const [name, end] of Object.entries(SANDBOX)) {
    const sent = await fromPage(page, "POST", "/api/v1/messages", { destination: number(end), text: `Layout check: ${name}` });
    assert.equal(sent.status, 201, JSON.stringify(sent.body));
    ids[name] = sent.body.id;
  }
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
  const later = await fromPage(page, "POST", "/api/v1/messages", { destination: number("00"), text: "Layout check: tomorrow", scheduled_at: tomorrow });
  assert.equal(later.status, 201, JSON.stringify(later.body));
  const optOut = await fromPage(page, "POST", "/api/v1/opt-outs", { phone: number("40"), note: "Asked by phone", kinds: null });
  assert.ok(optOut.status < 300, JSON.stringify(optOut.body));
  const account = await fromPage(page, "POST", "/api/v1/accounts", { name: "Olga", role: "operator", password: "olga's long password" });
  assert.equal(account.status, 201, JSON.stringify(account.body));
  const key = await fromPage(page, "POST", "/api/v1/keys", {
    name: "backoffice",
    webhook_url: null,
    scopes: null,
    limits: { per_minute: 120, per_day: null, destination_prefixes: ["+33"] },
  });
  assert.equal(key.status, 201, JSON.stringify(key.body));

  // An SMPP account, and its client bound (until the end of the test): listed on the dashboard's card.
  const smpp = await fromPage(page, "POST", "/api/v1/smpp-accounts", {
    name: "lab-results",
    kinds: ["transactional", "otp"],
    limits: { per_minute: null, per_day: null, destination_prefixes: [] },
  });
  assert.equal(smpp.status, 201, JSON.stringify(smpp.body));
  const { body: status } = await fromPage(page, "GET", "/api/v1/smpp-server");
  const [, host, port] = /^(.+):(\d+)$/.exec(status.listening ?? "") ?? [];
  assert.ok(port, `the SMPP server listens: ${JSON.stringify(status)}`);
  const client = await bindAsPbx(host, Number(port), smpp.body.info.name, smpp.body.password);

  const exceptions = await eventually("the conflict and the unmatched receipt open exceptions", async () => {
    const { body } = await fromPage(page, "GET", "/api/v1/exceptions?limit=100");
    const onMessage = body.items.find((e) => e.message_id === ids.conflict);
    const unmatched = body.items.find((e) => e.kind === "uncorrelated");
    return onMessage && unmatched ? { onMessage, unmatched } : undefined;
  });
  await alertFiredAndEnded(page);
  await eventually("the handset's reply reaches the inbox", async () => {
    const { body } = await fromPage(page, "GET", "/api/v1/inbox/unread");
    return body.unread > 0;
  });
  await eventually("the bad number's message failed", async () => {
    const { body } = await fromPage(page, "GET", `/api/v1/messages/${ids.badNumber}`);
    return body.queue.status === "failed";
  });
  return {
    failed: ids.badNumber,
    conflict: ids.conflict,
    exception: exceptions.onMessage.id,
    unmatched: exceptions.unmatched.id,
    thread: number(SANDBOX.reply),
    client,
  };
}

/**
 * Open exceptions over a limit of none fire an alert; acknowledged, then resolved with the limit
 * back, it is history; set to none again, a new one fires: both are on the Alerts screen.
 */
async function alertFiredAndEnded(page) {
  const limit = async (value) => {
    const saved = await fromPage(page, "PATCH", "/api/v1/settings", { values: { "alerts.open_exceptions_over": value }, password: null, callback_providers: null });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
  };
  const firing = () =>
    eventually("the open exceptions fire an alert", async () => {
      const { body } = await fromPage(page, "GET", "/api/v1/alerts");
      return body.alerts.find((a) => a.rule === "open_exceptions" && a.resolvedAtMs === null);
    });
  await limit("0");
  const first = await firing();
  const ack = await fromPage(page, "POST", `/api/v1/alerts/${first.id}/acknowledge`, { note: "Working through the oldest exceptions first" });
  assert.equal(ack.status, 204, JSON.stringify(ack.body));
  await limit("50");
  await eventually("the alert resolved", async () => {
    const { body } = await fromPage(page, "GET", "/api/v1/alerts");
    return body.alerts.find((a) => a.id === first.id)?.resolvedAtMs;
  });
  await limit("0");
  assert.notEqual((await firing()).id, first.id, "a new alert fires");
}

describe("every screen at phone and desktop width, in English, French and Russian", { timeout: 600_000 }, () => {
  let server;
  let dataDir;
  let browser;
  let ids;

  before(async () => {
    const bin = process.env.SMSDESK_BIN;
    if (!bin) throw new Error("SMSDESK_BIN is not set: point it at the smsdesk server binary");
    dataDir = await mkdtemp(path.join(tmpdir(), "smsdesk-layout-"));
    await writeFile(path.join(dataDir, "smsdesk.toml"), CONFIG);
    // The alert rules are looked at every second, so that the seed's alerts fire at once.
    server = await startServe(bin, dataDir, { SMSDESK_ALERTS_CHECK_SECONDS: "1" });
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: CHROMIUM_ARGS });
  });

  after(async () => {
    await ids?.client.unbind().catch(() => {});
    await browser?.close().catch(() => {});
    await server?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  test("the setup screen, then the first admin and the day's data", async () => {
    const found = [];
    for (const [language, locale] of LANGUAGES) {
      const context = await newContext(browser, server, { locale, viewport: PHONE });
      const page = await context.newPage();
      await page.goto(server.setupLink, { waitUntil: "load" });
      await page.getByTestId("setup-form").waitFor({ timeout: 15_000 });
      await settled(page);
      found.push(...(await measure(page, `${language} setup`, PHONE)));
      found.push(...(await measure(page, `${language} setup`, DESKTOP)));
      await context.close();
    }
    const context = await newContext(browser, server, { locale: "en-US" });
    const page = await context.newPage();
    await page.goto(server.url, { waitUntil: "load" });
    const token = new URL(server.setupLink).hash.slice(1);
    const made = await fromPage(page, "POST", "/api/v1/setup", { token, name: ADMIN.name, password: ADMIN.password });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    ids = await seed(page);
    await context.close();
    assert.deepEqual(found, [], "the setup screen holds at both widths in every language");
  });

  // The languages side by side: each in a browser context of its own, on the same server and data.
  describe("signed in, in each language", { concurrency: true }, () => {
    for (const [language, locale] of LANGUAGES) {
      test(`in ${language}: sign-in and every screen of the app`, async () => {
        assert.ok(ids, "needs the data the first test made");
        const found = [];
        const context = await newContext(browser, server, { locale, viewport: PHONE });
        const page = await context.newPage();
        try {
          await page.goto(server.url, { waitUntil: "load" });
          await page.getByTestId("sign-in").waitFor({ timeout: 15_000 });
          await settled(page);
          found.push(...(await measure(page, `${language} sign-in`, PHONE)));
          found.push(...(await measure(page, `${language} sign-in`, DESKTOP)));
          await page.getByTestId("signin-name").fill(ADMIN.name);
          await page.getByTestId("signin-password").fill(ADMIN.password);
          await page.getByTestId("signin-submit").click();
          await page.getByTestId("nav-messages").waitFor({ state: "attached", timeout: 15_000 });

          for (const size of [PHONE, DESKTOP]) {
            await page.setViewportSize(size);
            for (const [name, hash] of places(ids)) {
              await page.evaluate((h) => (window.location.hash = h), hash);
              await settled(page);
              const here = await measure(page, `${language} ${name}`, size);
              found.push(...here);
              // A screen that threw leaves nothing of the app: the next one starts afresh.
              if (here.some((p) => p.includes("uncaught exception"))) {
                await page.evaluate(() => window.location.replace("#/about"));
                await page.reload({ waitUntil: "load" });
                await page.getByTestId("nav-messages").waitFor({ state: "attached", timeout: 15_000 });
              }
            }
            found.push(
              ...(await connectionOverTls(page, language, size).catch((error) => [
                `${language} settings with a connection over TLS at ${size.width}: ${error.message.split("\n")[0]}`,
              ])),
            );
          }
          for (const facts of [phoneFacts, desktopFacts]) {
            if ((await page.locator("nav.app-nav").count()) === 0) {
              await page.evaluate(() => window.location.replace("#/about"));
              await page.reload({ waitUntil: "load" });
              await page.getByTestId("nav-messages").waitFor({ state: "attached", timeout: 15_000 });
            }
            found.push(
              ...(await facts(page, language).catch(async (error) => [
                `${language}: ${error.message.split("\n")[0]}; the page says: ${(await page.locator("body").innerText()).slice(0, 300)}`,
              ])),
            );
          }
        } finally {
          await context.close();
        }
        assert.deepEqual(found, [], `the screens hold at ${PHONE.width} and ${DESKTOP.width} px in ${language}`);
      });
    }
  });
});

/**
 * Settings with a connection added and switched to TLS (not saved): its fields and their help in
 * the row, with the problems of a row not filled in yet. The card of the SMPP server on the
 * dashboard is checked to list its client.
 */
async function connectionOverTls(page, language, size) {
  await page.evaluate(() => (window.location.hash = "#/dashboard"));
  await settled(page);
  await page.locator('[data-testid="smpp-server-session"]').first().waitFor({ timeout: 15_000 });
  await page.evaluate(() => (window.location.hash = "#/settings"));
  await settled(page);
  await page.getByTestId("connection-add").click({ timeout: 15_000 });
  const added = page.locator('[data-testid="connection-edit"]').last();
  await added.getByTestId("connection-tls-switch").check();
  await added.getByTestId("connection-tls-details").waitFor({ timeout: 15_000 });
  await settled(page);
  const found = await measure(page, `${language} settings with a connection over TLS`, size);
  // Left unsaved: the next screen starts from the saved settings.
  await page.getByTestId("connections-discard").click();
  return found;
}

/** At phone width: the header and the menu take a small part of the height, and a message's state shows in the list. */
async function phoneFacts(page, language) {
  const found = [];
  await page.setViewportSize(PHONE);
  await page.evaluate(() => (window.location.hash = "#/about"));
  await settled(page);
  const [header, nav] = await page.evaluate(() =>
    [".app-header", "nav.app-nav"].map((s) => document.querySelector(s)?.getBoundingClientRect().toJSON() ?? null),
  );
  if (header === null || nav === null) return [`${language} at ${PHONE.width}: no header or menu`];
  const taken = header.height + nav.height;
  if (taken > PHONE.height * 0.2) found.push(`${language} at ${PHONE.width}: the header and the menu take ${Math.round(taken)} px, over a fifth of the screen`);
  // The sandbox's banner stands between them: the screen's own content still starts in its first third.
  if (nav.bottom > PHONE.height / 3) found.push(`${language} at ${PHONE.width}: the screen's content starts ${Math.round(nav.bottom)} px down, below the first third`);
  await page.evaluate(() => (window.location.hash = "#/messages"));
  await settled(page);
  const state = page.locator('[data-testid="message-row"] .statuses').first();
  const box = await state.boundingBox();
  if (box === null || box.x < 0 || box.x + box.width > PHONE.width) {
    found.push(`${language} at ${PHONE.width}: a message's state in the list is off the screen (${JSON.stringify(box)})`);
  }
  return found;
}

/** In a desktop window: the sections' tabs hold on one line. */
async function desktopFacts(page, language) {
  await page.setViewportSize(DESKTOP);
  await page.evaluate(() => (window.location.hash = "#/about"));
  await settled(page);
  const tops = await page.locator("nav.app-nav .nav-item").evaluateAll((items) => items.map((i) => Math.round(i.getBoundingClientRect().top)));
  return new Set(tops).size === 1 ? [] : [`${language} at ${DESKTOP.width}: the sections' tabs wrap onto ${new Set(tops).size} lines`];
}
