// End-to-end: the real server binary in `serve` mode, its UI opened in headless Chromium.
//
//   SMSDESK_BIN=path/to/smsdesk [CHROMIUM=path/to/chromium] [SCREENSHOT_DIR=dir] [UI_DIR=ui/dist] npm test
//
// UI_DIR serves the UI's files from that folder instead of those built into the binary (the API
// still answers from the binary).
//
// The server starts on a fresh data folder, as an office's does: no account yet, and a one-time
// setup link on its standard error. The first admin is made from that link in the browser; the
// admin makes an operator's and a viewer's accounts; each then signs in and sees what their role
// allows, and the engine refuses what it does not.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { chromium } from "playwright-core";
import axe from "axe-core";

import {
  attachGhostReceipt,
  CSV_FILE,
  eventually,
  importCsv,
  longMessageInParts,
  optOutByReply,
  REPLY_26,
  replyInInbox,
  resolveConflict,
  retryFailed,
  sendAndWatchDelivered,
} from "./story.mjs";
import { findByNationalNumber, retryOptedOutSaysWhyAtOnce, scheduledIsNotInThePace, templateFilledOrRefused } from "./story_day.mjs";
import { englishIn, englishTells } from "./languages.mjs";
import { addBackupConnection, drainTheProvider } from "./story_connections.mjs";
import { failingConnectionInTheReport, sendOnTheBackup } from "./story_reports.mjs";
import { accessThenErase, codeShownMasked } from "./story_privacy.mjs";
import { alertFiresAndEnds } from "./story_alerts.mjs";
import { CHROMIUM_ARGS, serveUiFrom, startServe } from "./serve.mjs";
import {
  aFewMessages,
  bothTextsOnTheMessage,
  GUARDRAILS_CONFIG,
  GUARDRAILS_CSV,
  guardrailsScreen,
  importShowsItsCost,
  otpToBritainRefused,
  smartEncodingSavesAPart,
  spendOnTheDashboard,
} from "./story_guardrails.mjs";
import { campaignCsv, connectProvider, importCampaign, inFrench, pickTheGhostsMessage, scheduleMessage, startSandboxSmsc } from "./story_fr.mjs";
import { connectionOverTls, createSmppAccount, SMPP_CONFIG, smppServerCard } from "./story_smpp.mjs";

const READY_TIMEOUT_MS = 30_000;
const EXIT_TIMEOUT_MS = 15_000;

/** The running server: its process, where it keeps data, what it printed, and how it ended. */
class Server {
  constructor(bin, dataDir) {
    this.dataDir = dataDir;
    this.stdout = "";
    this.stderr = "";
    this.exit = null;
    this.child = spawn(bin, ["serve", "--data-dir", dataDir, "--http-port", "0"], {
      // The alert rules are looked at every second: the alerts story fires one and sees it end.
      env: { ...process.env, RUST_LOG: "info", SMSDESK_ALERTS_CHECK_SECONDS: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child.stdout.setEncoding("utf8").on("data", (chunk) => (this.stdout += chunk));
    this.child.stderr.setEncoding("utf8").on("data", (chunk) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => {
      this.child.once("error", (error) => {
        this.exit = { code: null, signal: null, error };
        resolve(this.exit);
      });
      this.child.once("exit", (code, signal) => {
        this.exit = { code, signal, error: null };
        resolve(this.exit);
      });
    });
  }

  get running() {
    return this.exit === null;
  }

  /** The server's own output, to make a failure explain itself. */
  log() {
    const tail = (text) => (text.length > 6000 ? `…${text.slice(-6000)}` : text);
    return `\n--- server stderr ---\n${tail(this.stderr)}\n--- server stdout ---\n${tail(this.stdout)}\n---`;
  }

  /** The server writes <data-dir>/instance.json once it is ready to answer. */
  async waitForInstance() {
    const file = path.join(this.dataDir, "instance.json");
    const deadline = Date.now() + READY_TIMEOUT_MS;
    let lastProblem = "instance.json not written yet";
    while (Date.now() < deadline) {
      if (!this.running) {
        const how = this.exit.error ? `failed to start: ${this.exit.error.message}` : `exited with code ${this.exit.code}, signal ${this.exit.signal}`;
        throw new Error(`the server ${how} before it was ready${this.log()}`);
      }
      try {
        const instance = JSON.parse(await readFile(file, "utf8"));
        if (typeof instance.httpUrl === "string" && Number.isInteger(instance.pid)) return instance;
        lastProblem = `instance.json lacks pid or httpUrl: ${JSON.stringify(instance)}`;
      } catch (error) {
        // Not there yet, or caught half-written: try again.
        if (error.code !== "ENOENT") lastProblem = `instance.json unreadable: ${error.message}`;
      }
      await sleep(100);
    }
    throw new Error(`the server was not ready within ${READY_TIMEOUT_MS / 1000} s (${lastProblem})${this.log()}`);
  }

  /** The first admin's setup link, as `serve` prints it on a data folder without any account. */
  async waitForSetupLink() {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const found = /No account exists yet\. Create the first admin within 30 minutes at\s+(http:\/\/127\.0\.0\.1:\d+\/setup#setup_[0-9a-f]+)/.exec(this.stderr);
      if (found) return found[1];
      await sleep(100);
    }
    throw new Error(`the server printed no setup link within ${READY_TIMEOUT_MS / 1000} s${this.log()}`);
  }

  /** Resolves with how the process ended, or null if it is still running after `ms`. */
  async waitForExit(ms) {
    return Promise.race([this.exited, sleep(ms).then(() => null)]);
  }
}

async function getJson(url, key) {
  const headers = { Accept: "application/json" };
  if (key) headers.Authorization = `Bearer ${key}`;
  const response = await fetch(url, { headers });
  const text = await response.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    assert.fail(`GET ${url} answered ${response.status} with a body that is not JSON: ${text.slice(0, 500)}`);
  }
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", body };
}

/** Opens the UI in a fresh browser context and records everything that went wrong on the page. */
async function openUi(browser, url, contextOptions) {
  const context = await browser.newContext(contextOptions);
  await serveUiFrom(context, url);
  const page = await context.newPage();
  const problems = [];
  const origin = new URL(url).origin;
  page.on("request", (request) => {
    if (new URL(request.url()).origin !== origin) problems.push(`remote request: ${request.method()} ${request.url()}`);
  });
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console error: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`uncaught exception: ${error.message}`));
  page.on("requestfailed", (request) => {
    // A read the page abandoned is no failure: the UI closes its own event stream when a view stops
    // listening, and a reload or a change of view leaves the reads under way behind.
    const closedByUi = request.method() === "GET" && request.failure()?.errorText === "net::ERR_ABORTED";
    if (!closedByUi) problems.push(`request failed: ${request.method()} ${request.url()} (${request.failure()?.errorText})`);
  });
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()} for ${response.url()}`);
  });
  const response = await page.goto(url, { waitUntil: "load" });
  assert.equal(response?.status(), 200, `the UI must be served at ${url}`);
  return { context, page, problems };
}

/** The accounts the story makes, by role. */
const ADMIN = { name: "Alice", password: "alice's long password" };
const OPERATOR = { name: "Olga", password: "olga's long password" };
const VIEWER = { name: "Victor", password: "victor's long password" };

/** Signs in on the sign-in screen as a person would, and waits for the app. */
async function signIn(page, { name, password }) {
  await page.getByTestId("sign-in").waitFor({ timeout: 15_000 });
  await page.getByTestId("signin-name").fill(name);
  await page.getByTestId("signin-password").fill(password);
  await page.getByTestId("signin-submit").click();
  await page
    .getByTestId("nav-messages")
    .waitFor({ timeout: 15_000 })
    .catch(async (error) => {
      error.message += `\n--- the page says ---\n${await page.locator("main").textContent()}`;
      throw error;
    });
}

/** A fresh browser signed in as `who`; the page asked who is signed in first (a 401 then, expected). */
async function signedIn(browser, url, who, contextOptions = { locale: "en-US", colorScheme: "light" }) {
  const opened = await openUi(browser, url, contextOptions);
  await signIn(opened.page, who);
  opened.problems.splice(0, opened.problems.length, ...unexpected(opened.problems, 401, "/api/v1/me"));
  return opened;
}

/** Problems other than the HTTP `status` answers to `path` (and the console line Chromium logs for each) the test provoked on purpose. */
function unexpected(problems, status, path) {
  return problems.filter(
    (p) =>
      !(p.startsWith(`HTTP ${status} for `) && p.endsWith(path)) &&
      !(p.startsWith("console error: Failed to load resource") && p.includes(`status of ${status}`)),
  );
}

/** A request made by the page itself, with its session cookie and, to change something, its CSRF token from `me`. */
function fromPage(page, method, path, body) {
  return page.evaluate(
    async ({ method, path, body }) => {
      const me = await (await fetch("/api/v1/me")).json();
      const response = await fetch(path, {
        method,
        headers: { "Content-Type": "application/json", "X-CSRF-Token": me.csrf_token ?? "" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json().catch(() => null) };
    },
    { method, path, body },
  );
}

/** What axe-core finds wrong on the page as it is now (WCAG 2.x A and AA rules), one line per problem and element. */
async function accessibilityProblems(page) {
  const violations = await page.evaluate(async (source) => {
    if (window.axe === undefined) (0, eval)(source);
    const result = await window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
    return result.violations.map((v) => ({ id: v.id, help: v.help, targets: v.nodes.map((n) => n.target.join(" ")) }));
  }, axe.source);
  return violations.flatMap((v) => v.targets.map((t) => `${v.id} (${v.help}): ${t}`));
}

/**
 * `style`: `{ selector: { property: value } }` set on the matching elements while the picture is
 * taken (a bar that sticks to the window's bottom let go of, say), then taken off again. Set
 * through the elements' style objects: the app's Content-Security-Policy (style-src 'self')
 * refuses a stylesheet added to the page.
 */
async function screenshot(page, name, { fullPage = true, element, style } = {}) {
  const dir = process.env.SCREENSHOT_DIR;
  if (!dir) return;
  await mkdir(dir, { recursive: true });
  const restyle = (rules, on) =>
    page.evaluate(({ rules, on }) => {
      for (const [selector, props] of Object.entries(rules)) {
        for (const el of document.querySelectorAll(selector)) {
          for (const [prop, value] of Object.entries(props)) {
            if (on) el.style.setProperty(prop, value);
            else el.style.removeProperty(prop);
          }
        }
      }
    }, { rules, on });
  if (style) await restyle(style, true);
  try {
    // One part of a long screen: that element alone.
    if (element) await page.locator(element).first().screenshot({ path: path.join(dir, name) });
    else await page.screenshot({ path: path.join(dir, name), fullPage });
  } finally {
    if (style) await restyle(style, false);
  }
}

/** The story's verbs (story.mjs) on a Playwright page. */
function storyUi(page) {
  const first = (sel) => page.locator(sel).first();
  return {
    click: (sel) => first(sel).click({ timeout: 15_000 }),
    fill: (sel, text) => first(sel).fill(text, { timeout: 15_000 }),
    setFile: (sel, file) => first(sel).setInputFiles(file, { timeout: 15_000 }),
    waitFor: (sel, ms = 15_000) => first(sel).waitFor({ state: "attached", timeout: ms }),
    count: (sel) => page.locator(sel).count(),
    text: (sel) => first(sel).textContent({ timeout: 15_000 }),
    attr: (sel, name) => first(sel).getAttribute(name, { timeout: 15_000 }),
    screenshot: (name, options) => screenshot(page, name, options),
    select: (sel, value) => first(sel).selectOption(value, { timeout: 15_000 }),
    setValue: (sel, value) => first(sel).fill(value, { timeout: 15_000 }),
    reload: () => page.reload({ waitUntil: "load" }),
    download: async (sel) => {
      const [download] = await Promise.all([page.waitForEvent("download", { timeout: 15_000 }), first(sel).click({ timeout: 15_000 })]);
      return readFile(await download.path(), "utf8");
    },
    accessible: async (what) =>
      assert.deepEqual(await accessibilityProblems(page), [], `${what} has no accessibility problem axe can find`),
  };
}

/** Opens the Accounts screen and adds an account there, as an admin does. */
async function addAccount(page, { name, password }, role) {
  await page.getByTestId("nav-accounts").click();
  const form = page.getByTestId("account-create-form");
  await form.waitFor({ timeout: 15_000 });
  await page.getByTestId("new-account-name").fill(name);
  await page.getByTestId("new-account-role").selectOption(role);
  await page.getByTestId("new-account-password").fill(password);
  await page.getByTestId("new-account-confirm").fill(password);
  await page.getByTestId("new-account-submit").click();
  await page.locator(`[data-testid="account-created"][data-name="${name}"]`).waitFor({ timeout: 15_000 });
  await page.locator(`[data-testid="account-row"][data-name="${name}"][data-role="${role}"]`).waitFor({ timeout: 15_000 });
}

describe("smsdesk serve: accounts, roles and the operator's story in a browser", { timeout: 900_000 }, () => {
  let dataDir;
  let server;
  let instance;
  let info;
  let browser;
  let setupLink;
  /** The message sent to the number that then opted out by reply. */
  let optedOutMessage;
  /** The first admin's browser, kept open through the story (as an admin's would be). */
  let admin;
  /** The key the admin creates in the browser: what the test reads the API with, as an integration. */
  let apiKey;

  before(async () => {
    const bin = process.env.SMSDESK_BIN;
    if (!bin) {
      throw new Error("SMSDESK_BIN is not set: point it at the smsdesk server binary, e.g. SMSDESK_BIN=target/debug/smsdesk");
    }
    dataDir = await mkdtemp(path.join(tmpdir(), "smsdesk-ui-test-"));
    server = new Server(bin, dataDir);
    instance = await server.waitForInstance();
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
      args: CHROMIUM_ARGS,
    });
  });

  after(async () => {
    await admin?.context.close().catch(() => {});
    await browser?.close().catch(() => {});
    if (server?.running) {
      server.child.kill("SIGKILL");
      await server.exited;
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  test("instance.json names this process and a loopback HTTP address", () => {
    assert.equal(instance.pid, server.child.pid, "instance.json must carry the server's own pid");
    assert.match(instance.httpUrl, /^http:\/\/127\.0\.0\.1:\d+$/, "the server must listen on loopback by default");
    assert.notEqual(new URL(instance.httpUrl).port, "0", "the address must carry the port actually bound");
  });

  test("a fresh instance prints a one-time setup link, and asks a credential of every route but health and setup", async () => {
    setupLink = await server.waitForSetupLink();
    assert.equal(new URL(setupLink).origin, instance.httpUrl, "the link points at this server");
    const setup = await getJson(`${instance.httpUrl}/api/v1/setup`);
    assert.equal(setup.status, 200);
    assert.deepEqual(setup.body, { open: true }, "no account yet: the setup is open");
    const { status, body } = await getJson(`${instance.httpUrl}/api/v1/info`);
    assert.equal(status, 401, "every route but health and setup must need a credential");
    assert.equal(body.code, "unauthorized");
    assert.equal((await getJson(`${instance.httpUrl}/api/v1/info`, "sdk_not_a_key")).status, 401, "an unknown key must be refused");
  });

  test("GET /api/v1/health answers status ok, without a credential", async () => {
    const { status, contentType, body } = await getJson(`${instance.httpUrl}/api/v1/health`);
    assert.equal(status, 200, server.log());
    assert.match(contentType, /^application\/json/);
    assert.equal(body.status, "ok");
    assert.equal(typeof body.version, "string");
    assert.ok(Number.isInteger(body.schemaVersion) && body.schemaVersion >= 1, `schemaVersion ${body.schemaVersion} must be ≥ 1`);
  });

  test("an unknown API route answers a JSON ApiError", async () => {
    const { status, body } = await getJson(`${instance.httpUrl}/api/v1/no-such-route`);
    assert.equal(status, 404);
    assert.equal(typeof body.code, "string");
    assert.equal(typeof body.message, "string");
  });

  test("before any account exists, the sign-in page points to the setup link", async () => {
    const { context, page, problems } = await openUi(browser, instance.httpUrl, { locale: "en-US", colorScheme: "light" });
    try {
      await page.getByTestId("signin-setup-open").waitFor({ timeout: 15_000 });
      assert.match(await page.getByTestId("signin-setup-open").textContent(), /No account exists yet/);
      assert.equal(await page.getByTestId("nav-messages").count(), 0, "nothing of the app may show before signing in");
      assert.deepEqual(unexpected(problems, 401, "/api/v1/me"), [], "a signed-out page only asks who is signed in");
    } finally {
      await context.close();
    }
  });

  test("the setup link makes the first admin in the browser, who is then signed in on Accounts", async () => {
    assert.ok(setupLink, "needs the setup link from the test before");
    admin = await openUi(browser, setupLink, { locale: "en-US", colorScheme: "light" });
    const { context, page, problems } = admin;
    await page.getByTestId("setup-form").waitFor({ timeout: 15_000 });
    assert.equal(await page.getByRole("heading", { level: 2 }).textContent(), "Create the first admin");
    await page.getByLabel("Name", { exact: true }).fill(ADMIN.name);
    await page.getByLabel("New password", { exact: true }).fill(ADMIN.password);
    await page.getByLabel("Type it again", { exact: true }).fill(ADMIN.password);
    // The office's country is asked here, suggested from the browser's language (en-US), and
    // France is picked: national numbers are read as French from now on.
    assert.equal(await page.getByTestId("setup-country").inputValue(), "US", "the browser's region is suggested");
    await page.getByTestId("setup-country").selectOption("FR");
    await screenshot(page, "setup.png");
    await page.getByTestId("setup-submit").click();
    await page.getByTestId("accounts-table").waitFor({ timeout: 15_000 });
    assert.equal(await page.getByTestId("nav-accounts").getAttribute("aria-current"), "page", "the admin lands on Accounts");
    assert.equal(await page.getByTestId("user-name").textContent(), ADMIN.name);
    assert.equal(await page.getByTestId("user-role").textContent(), "Admin");
    assert.equal(new URL(page.url()).hash, "#/accounts");
    assert.doesNotMatch(page.url(), /setup_/, "the address forgets the setup token");
    const [cookie] = (await context.cookies()).filter((c) => c.name === "smsdesk_session");
    assert.ok(cookie, "signing in sets the session cookie");
    assert.equal(cookie.httpOnly, true, "no script may read the session");
    assert.equal(cookie.sameSite, "Strict", "no other site's page may send it");
    assert.deepEqual(await page.evaluate(() => [sessionStorage.length, localStorage.length]), [0, 0], "the page keeps no credential");
    assert.deepEqual((await getJson(`${instance.httpUrl}/api/v1/setup`)).body, { open: false }, "the setup closed with the first account");
    assert.deepEqual(problems, [], "the setup page only asked whether setup is open, never who is signed in");
  });

  test("the setup link, once used, is refused with a link to sign in", async () => {
    const { context, page, problems } = await openUi(browser, setupLink, { locale: "en-US", colorScheme: "light" });
    try {
      await page.getByTestId("setup-closed").waitFor({ timeout: 15_000 });
      assert.match(await page.getByTestId("setup-closed").textContent(), /This instance is set up already/);
      assert.equal(await page.getByTestId("setup-sign-in").getAttribute("href"), "/");
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test("the admin adds an operator and a viewer on the Accounts screen, and sees who is signed in", async () => {
    const { page, problems } = admin;
    await addAccount(page, OPERATOR, "operator");
    await addAccount(page, VIEWER, "viewer");
    const rows = await page.getByTestId("account-row").evaluateAll((r) => r.map((e) => [e.dataset.name, e.dataset.role]));
    assert.deepEqual(rows, [
      ["Alice", "admin"],
      ["Olga", "operator"],
      ["Victor", "viewer"],
    ]);
    await page.locator('[data-testid="session-row"][data-name="Alice"]').waitFor({ timeout: 15_000 });
    assert.equal(await page.locator('[data-testid="session-row"][data-name="Alice"] [data-testid="session-address"]').textContent(), "127.0.0.1");
    await page.locator('[data-testid="account-row"][data-name="Olga"] [data-testid="account-manage"]').click();
    await page.getByTestId("account-editor").waitFor({ timeout: 15_000 });
    await screenshot(page, "accounts.png");
    await page.getByTestId("account-editor-close").click();
    assert.deepEqual(problems, []);
  });

  test("the admin creates an API key with chosen scopes and limits in the browser; the key can do that and no more", async () => {
    const { page, problems } = admin;
    await page.getByTestId("nav-keys").click();
    await page.getByTestId("create-key-form").waitFor({ timeout: 15_000 });
    assert.deepEqual(
      await page.locator('[data-testid="key-scopes-choice"] input[type="checkbox"]:checked').evaluateAll((b) => b.map((e) => e.value)),
      ["send", "read:own"],
      "a new key may send and read its own messages unless more is chosen",
    );
    await page.getByLabel("Name", { exact: true }).fill("backoffice");
    await page.getByTestId("key-scope-read:own").uncheck();
    await page.getByTestId("key-scope-read:all").check();
    await page.getByTestId("key-per-minute").fill("120");
    await page.getByTestId("key-prefixes").fill("+33");
    await page.getByTestId("create-key-submit").click();
    await page.getByTestId("created-key-value").waitFor({ timeout: 15_000 });
    apiKey = (await page.getByTestId("created-key-value").textContent()).trim();
    assert.match(apiKey, /^sdk_/);
    const row = page.locator('[data-testid="key-row"]').filter({ hasText: "backoffice" });
    assert.equal(await row.getByTestId("key-scopes").getAttribute("data-scopes"), "send read:all");
    assert.match(await row.getByTestId("key-limits").textContent(), /120 per minute.*only to \+33/);
    assert.doesNotMatch(await page.getByTestId("keys-table").textContent(), /sdk_[A-Za-z0-9_-]{20,}/, "the list never shows a whole key");
    await screenshot(page, "api-keys.png");

    const { status, body } = await getJson(`${instance.httpUrl}/api/v1/info`, apiKey);
    assert.equal(status, 200, "the key reads what read:all allows");
    info = body;
    const keys = await getJson(`${instance.httpUrl}/api/v1/keys`, apiKey);
    assert.equal(keys.status, 403, "no key manages keys");
    assert.equal(keys.body.code, "forbidden");
    assert.deepEqual(problems, []);
  });

  test("a wrong password is refused plainly, and nothing of the app shows", async () => {
    const { context, page, problems } = await openUi(browser, instance.httpUrl, { locale: "en-US", colorScheme: "light" });
    try {
      await page.getByTestId("sign-in").waitFor({ timeout: 15_000 });
      assert.equal(await page.getByRole("heading", { level: 1 }).textContent(), "smsdesk");
      assert.equal(await page.getByRole("heading", { level: 2 }).textContent(), "Sign in");
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "signin-name", "the name field takes focus");
      assert.equal(await page.getByLabel("Password", { exact: true }).getAttribute("type"), "password", "a password must not show as it is typed");
      assert.equal(await page.getByTestId("signin-setup-open").count(), 0, "an account exists: no pointer to the setup link");
      await page.getByLabel("Name", { exact: true }).fill(OPERATOR.name);
      await screenshot(page, "sign-in.png");
      await page.getByLabel("Password", { exact: true }).fill("not olga's password");
      await page.getByTestId("signin-submit").click();
      const error = page.getByTestId("signin-error");
      await error.waitFor({ timeout: 15_000 });
      assert.equal(await error.getAttribute("data-code"), "unauthorized");
      assert.match(await error.textContent(), /Wrong name or password/);
      assert.equal(await page.getByTestId("nav-messages").count(), 0);
      assert.deepEqual(await page.evaluate(() => [sessionStorage.length, localStorage.length]), [0, 0], "nothing is kept of a refused sign-in");
      assert.deepEqual(unexpected(unexpected(problems, 401, "/api/v1/me"), 401, "/api/v1/session"), [], "only the refused sign-in may fail");
    } finally {
      await context.close();
    }
  });

  test("the operator signs in: no Settings, API keys or Accounts; About shows what the API reports; a reload keeps the session", async () => {
    assert.ok(info, "needs the /api/v1/info answer from the test before");
    const { context, page, problems } = await signedIn(browser, instance.httpUrl, OPERATOR);
    try {
      assert.equal(await page.getByTestId("nav-messages").getAttribute("aria-current"), "page", "Messages is the landing section");
      assert.equal(await page.getByTestId("user-name").textContent(), OPERATOR.name);
      assert.equal(await page.getByTestId("user-role").textContent(), "Operator");
      const tabs = await page.locator(".nav-item").evaluateAll((t) => t.map((e) => e.dataset.testid));
      assert.deepEqual(tabs, ["nav-dashboard", "nav-reports", "nav-messages", "nav-inbox", "nav-exceptions", "nav-alerts", "nav-guardrails", "nav-optouts", "nav-audit", "nav-about"]);

      // This server runs on the built-in sandbox SMSC: every screen must say that no real SMS is sent.
      const banner = page.getByTestId("sandbox-banner");
      await banner.waitFor({ state: "visible", timeout: 15_000 });
      assert.equal(await banner.getAttribute("role"), "status");
      assert.match(await banner.textContent(), /^Sandbox: no real SMS is sent\./);
      await page.getByTestId("nav-dashboard").click();
      await page.locator('[data-testid="link-state"][data-state="bound"]').waitFor({ timeout: 15_000 });
      assert.match(await page.getByTestId("link-state").textContent(), /^Connected to the sandbox since /);

      await page.getByTestId("nav-about").click();
      await page.getByTestId("info-version").waitFor({ timeout: 15_000 });
      assert.equal(await page.getByTestId("info-version").textContent(), info.version);
      const mode = page.getByTestId("info-mode");
      assert.equal(await mode.getAttribute("data-mode"), "serve");
      assert.match(await mode.textContent(), /Headless server/);
      const schema = page.getByTestId("info-schema-version");
      assert.equal(Number(await schema.getAttribute("data-value")), info.schemaVersion);
      // Where the data lives is for admins: the API tells an operator nothing of it.
      for (const id of ["info-data-dir", "info-database-path", "info-config-path"]) {
        assert.equal(await page.getByTestId(id).count(), 0, `an operator is not shown ${id}`);
      }
      const link = page.getByTestId("info-http-url");
      assert.equal(await link.evaluate((el) => el.tagName), "A", "the HTTP address must be a link");
      assert.equal(await link.getAttribute("href"), info.httpUrl);
      assert.equal(Date.parse(await page.getByTestId("info-started-at").getAttribute("datetime")), info.startedAtMs);

      // From the About tab, the next Tab stop is the panel's link.
      await page.getByTestId("nav-about").focus();
      await page.keyboard.press("Tab");
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "info-http-url");

      // The session is the browser's cookie: it survives a reload, and the page itself keeps nothing.
      await page.reload({ waitUntil: "load" });
      await page.getByTestId("nav-messages").waitFor({ timeout: 15_000 });
      assert.equal(await page.getByTestId("user-name").textContent(), OPERATOR.name);
      assert.deepEqual(await page.evaluate(() => [sessionStorage.length, localStorage.length]), [0, 0], "no credential in web storage");

      await page.goto(`${instance.httpUrl}/#/settings`, { waitUntil: "load" });
      await page.getByTestId("not-for-you").waitFor({ timeout: 15_000 });
      assert.match(await page.getByTestId("not-for-you").textContent(), /your role is Operator/);

      await page.getByTestId("nav-about").click();
      await page.getByTestId("info-version").waitFor({ timeout: 15_000 });
      await screenshot(page, "about.png");
      assert.deepEqual(problems, [], "the page must load without console errors, failed or remote requests");
    } finally {
      await context.close();
    }
  });

  test("a message sent from the form appears in the list and reaches delivered by live updates on the session cookie", async () => {
    const { context, page, problems } = await openUi(browser, instance.httpUrl, { locale: "en-US", colorScheme: "light" });
    const eventStreams = [];
    const listRequests = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname === "/api/v1/events") eventStreams.push(request.allHeaders());
      if (url.pathname === "/api/v1/messages" && request.method() === "GET") listRequests.push(url.search);
    });
    try {
      await signIn(page, OPERATOR);
      await page.getByTestId("messages-empty").waitFor({ timeout: 15_000 });

      // The sandbox SMSC delivers a destination ending in 00 and sends its receipt shortly after.
      await page.getByTestId("messages-tab-new").click();
      await page.getByLabel("Destination", { exact: true }).fill("+33 6 12 34 56 00");
      await page.getByLabel("Text", { exact: true }).fill("Browser test: your order has shipped");
      await page.getByTestId("send-submit").click();
      const done = page.getByTestId("send-done");
      await done.waitFor({ timeout: 15_000 });
      const id = await done.getAttribute("data-id");
      assert.match(id, /^\d+$/, "the answer must name the queued message");
      await page.getByTestId("messages-tab-list").click();

      const row = page.locator(`[data-testid="message-row"][data-id="${id}"]`);
      await row.waitFor({ timeout: 15_000 });
      assert.equal(await row.getByTestId("message-destination").textContent(), "+33612345600", "the number is shown as normalised");
      await page.locator(`[data-testid="message-row"][data-id="${id}"][data-state="delivered"]`).waitFor({ timeout: 20_000 });
      assert.equal(await row.getAttribute("data-status"), "accepted");
      assert.equal(await row.getByTestId("message-state").textContent(), "Delivered");

      assert.ok(eventStreams.length >= 1, "the page must follow /api/v1/events");
      for (const headers of await Promise.all(eventStreams)) {
        assert.equal(headers.authorization, undefined, "the event stream carries no API key");
        assert.match(headers.cookie ?? "", /smsdesk_session=sds_/, "the event stream rides on the session cookie");
      }
      assert.ok(listRequests.length >= 2, `the list must have reloaded by itself after the first load (${listRequests.length} loads)`);

      const { body } = await getJson(`${instance.httpUrl}/api/v1/messages/${id}`, apiKey);
      assert.equal(body.summary.state, "delivered", "the page must show what the API reports");
      await screenshot(page, "messages.png");
      assert.deepEqual(unexpected(problems, 401, "/api/v1/me"), [], "the page must work without console errors, failed or remote requests");
    } finally {
      await context.close();
    }
  });

  test("the operator's story: delivered, a conflict resolved with a note, a failed message retried, a CSV imported, a long message part by part, a silent accept settled by its receipt; the audit log names the operator", async () => {
    const { context, page, problems } = await signedIn(browser, instance.httpUrl, OPERATOR);
    try {
      const ui = storyUi(page);
      await sendAndWatchDelivered(ui);
      const conflict = await resolveConflict(ui);
      await retryFailed(ui);
      const csv = path.join(dataDir, "import.csv");
      await writeFile(csv, CSV_FILE);
      await importCsv(ui, csv);
      await longMessageInParts(ui);
      await attachGhostReceipt(ui);
      await page.getByTestId("nav-dashboard").click();
      await page.getByTestId("dashboard-figures").waitFor({ timeout: 15_000 });
      await screenshot(page, "dashboard.png");

      // Every decision is the operator's by name, never a generic "operator".
      await page.getByTestId("nav-audit").click();
      const resolution = page.locator('[data-testid="audit-row"][data-action="exception.resolve"]').filter({ hasText: "Customer called: the phone was switched off all day" });
      await resolution.waitFor({ timeout: 15_000 });
      assert.equal(await resolution.getByTestId("audit-who").textContent(), OPERATOR.name, "the audit log names who resolved the conflict");
      const retry = page.locator('[data-testid="audit-row"]').filter({ hasText: "Number corrected by the customer on the phone" });
      assert.equal(await retry.getByTestId("audit-who").textContent(), OPERATOR.name);
      const { body } = await getJson(`${instance.httpUrl}/api/v1/audit?limit=200`, apiKey);
      const resolved = body.items.find((e) => e.action === "exception.resolve" && e.note === "Customer called: the phone was switched off all day");
      assert.equal(resolved?.actor, OPERATOR.name, `the API's audit entry names the operator: ${JSON.stringify(resolved)}`);
      const exceptions = await getJson(`${instance.httpUrl}/api/v1/exceptions?limit=100`, apiKey);
      const decided = exceptions.body.items.find((e) => String(e.message_id) === conflict && e.kind === "conflicting_final");
      assert.equal(decided?.resolved_by, OPERATOR.name, "the exception itself says who decided it");
      // The one refusal the story provokes: the retry of a number refused for good asks to be confirmed (409).
      assert.deepEqual(unexpected(problems, 409, "/retry"), [], "the story must play without console errors, failed or remote requests");
    } finally {
      await context.close();
    }
  });

  test("replies and opt-outs: a handset's answer in the Inbox beside the message sent, an 'Arrêt' that puts its number on the opt-out list with the reply as evidence, and a new message to it refused", async () => {
    const { context, page, problems } = await signedIn(browser, instance.httpUrl, OPERATOR);
    try {
      const ui = storyUi(page);
      await replyInInbox(ui);
      optedOutMessage = await optOutByReply(ui);

      // A number put on the list by hand, as after a phone call.
      await page.getByTestId("nav-optouts").click();
      await page.getByTestId("optout-add-phone").fill("+33 6 12 34 56 90");
      await page.getByTestId("optout-add-note").fill("Asked by phone to stop the newsletter");
      await page.getByTestId("optout-add-kind-transactional").uncheck();
      await page.getByTestId("optout-add-submit").click();
      await page.getByTestId("optout-add-done").waitFor({ timeout: 15_000 });
      const byHand = page.locator('[data-testid="optout-row"][data-phone="+33612345690"]');
      await byHand.waitFor({ timeout: 15_000 });
      assert.equal(await byHand.getByTestId("optout-reason").textContent(), "Added by hand");
      assert.equal(await byHand.getByTestId("optout-by").textContent(), OPERATOR.name);
      assert.equal(await byHand.getByTestId("optout-kinds").textContent(), "Bulk");
      assert.equal(await page.getByTestId("optouts-current").getAttribute("data-count"), "2");

      // A file of numbers: checked first (one to add, one on the list already), then imported.
      const stopList = path.join(dataDir, "stop-list.csv");
      await writeFile(stopList, "phone,note\n+33612345628,asked again by mail\n+33 6 12 34 56 91,unsubscribed on the website\n");
      await page.getByTestId("optout-import-file").setInputFiles(stopList);
      await page.getByTestId("optout-import-plan").waitFor({ timeout: 15_000 });
      assert.equal(
        await page.getByTestId("optout-import-counts").textContent(),
        "To add: 1. Already on the list: 1. Waiting messages that will be held: 0.",
      );
      assert.equal(await page.getByTestId("optouts-current").getAttribute("data-count"), "2", "a dry run changes nothing");
      await page.getByTestId("optout-import-confirm").click();
      await page.getByTestId("optout-import-done").waitFor({ timeout: 15_000 });
      await page.locator('[data-testid="optout-row"][data-phone="+33612345691"][data-reason="import"]').waitFor({ timeout: 15_000 });
      assert.equal(await page.getByTestId("optouts-current").getAttribute("data-count"), "3");
      assert.deepEqual(await accessibilityProblems(page), [], "the Opt-outs screen has no accessibility problem axe can find");
      await page.evaluate(() => document.activeElement?.blur());
      await screenshot(page, "opt-outs.png");

      // The opted-out number's conversation says so, with the evidence, and offers no answer.
      await page.locator('[data-testid="optout-row"][data-phone="+33612345628"] [data-testid="optout-open-thread"]').click();
      const optedOut = page.locator('[data-testid="conversation"][data-thread="+33612345628"]');
      await optedOut.getByTestId("thread-opt-out").waitFor({ timeout: 15_000 });
      assert.match(await optedOut.getByTestId("thread-opt-out-evidence").textContent(), /Arrêt/);
      assert.equal(await optedOut.getByTestId("reply-composer").getAttribute("data-blocked"), "true");
      assert.equal(await optedOut.getByTestId("composer-text").isDisabled(), true, "no answer to a number that opted out");
      assert.match(await optedOut.locator('[data-testid="reply-intent"]').first().textContent(), /^Opt-out: /);

      // Back in the first conversation, the sandbox plays the handset's next reply on request.
      await page.locator('[data-testid="thread-row"][data-thread="+33612345626"]').click();
      const conversation = page.locator('[data-testid="conversation"][data-thread="+33612345626"]');
      await conversation.getByTestId("thread-item").first().waitFor({ timeout: 15_000 });
      assert.equal(await page.getByTestId("simulate-from").inputValue(), "+33612345626", "the form offers the open conversation's number");
      await page.getByTestId("simulate-text").fill("C'est noté, je rappelle demain matin.");
      await page.getByTestId("simulate-submit").click();
      await page.getByTestId("simulate-done").waitFor({ timeout: 15_000 });
      await conversation.locator('[data-testid="thread-item"][data-direction="received"]').nth(1).waitFor({ timeout: 30_000 });
      const replies = await conversation.locator('[data-testid="thread-item"][data-direction="received"] [data-testid="bubble-text"]').allTextContents();
      assert.deepEqual(replies, [REPLY_26, "C'est noté, je rappelle demain matin."]);
      assert.deepEqual(await accessibilityProblems(page), [], "the Inbox has no accessibility problem axe can find");
      await page.evaluate(() => document.activeElement?.blur());
      await screenshot(page, "inbox.png");

      // The engine kept who did what: the reply's opt-out, and the operator's.
      const { body } = await getJson(`${instance.httpUrl}/api/v1/audit?limit=100`, apiKey);
      assert.ok(body.items.some((e) => e.action === "opt_out.reply"), "the reply's opt-out is audited");
      assert.equal(body.items.find((e) => e.action === "opt_out.add")?.actor, OPERATOR.name);
      assert.deepEqual(unexpected(problems, 422, "/api/v1/messages"), [], "only the refused message may fail");
    } finally {
      await context.close();
    }
  });

  test("the operator's day: a number found as typed in France, a template refused with its empty value named then sent filled, a message for tomorrow kept out of the pace, and a retry to an opted-out number refused at once", async () => {
    assert.ok(optedOutMessage, "needs the message to the number that opted out, from the test before");
    const { context, page, problems } = await signedIn(browser, instance.httpUrl, OPERATOR);
    try {
      const ui = storyUi(page);
      await findByNationalNumber(ui);
      await templateFilledOrRefused(ui);
      await scheduledIsNotInThePace(ui);
      await retryOptedOutSaysWhyAtOnce(ui, optedOutMessage);
      assert.deepEqual(unexpected(problems, 422, "/api/v1/messages"), [], "only the send with an empty value may be refused");
    } finally {
      await context.close();
    }
  });

  test("an OTP past its tries: the operator reads why the retry is refused; the admin sends it anyway with a note, audited", async () => {
    const operator = await signedIn(browser, instance.httpUrl, OPERATOR);
    try {
      const { page } = operator;
      // The sandbox refuses a destination ending in 13 for good; an OTP is tried at most twice.
      await page.getByTestId("messages-tab-new").click();
      await page.getByTestId("send-destination").fill("+33 6 12 34 56 13");
      await page.getByTestId("send-kind").selectOption("otp");
      await page.getByTestId("send-text").fill("Your code is 5521");
      await page.getByTestId("send-submit").click();
      await page.getByTestId("send-done").waitFor({ timeout: 15_000 });
      const id = await page.getByTestId("send-done").getAttribute("data-id");
      await page.getByTestId("messages-tab-list").click();
      await page.locator(`[data-testid="message-row"][data-id="${id}"][data-status="failed"]`).waitFor({ timeout: 30_000 });
      await page.locator(`[data-testid="message-row"][data-id="${id}"] [data-testid="message-destination"]`).click();
      await page.getByTestId("retry-open").click();
      // Refused for good before: the panel says at once that it will likely fail again, and asks.
      await page.getByTestId("retry-fact-confirm").waitFor({ timeout: 15_000 });
      assert.equal(await page.getByTestId("retry-fact-confirm").getAttribute("data-code"), "will_fail_again");
      await page.getByTestId("retry-note").fill("The customer asked for a second code");
      await page.getByTestId("retry-facts-confirm").click();
      await page.getByTestId("action-done").waitFor({ timeout: 15_000 });
      await eventually("the second try is refused too", async () => (await page.getByTestId("statement-queue").getAttribute("data-status")) === "failed" && (await page.locator('[data-testid="timeline-item"][data-kind="attempt"]').count()) === 2, 30_000);

      // Past its tries: the operator reads why at once, and is asked for nothing.
      await page.getByTestId("retry-open").click();
      const refusal = page.getByTestId("retry-fact-blocked");
      await refusal.waitFor({ timeout: 15_000 });
      assert.equal(await refusal.getAttribute("data-code"), "limit_reached");
      assert.match(await refusal.textContent(), /admin/, "it says who may send it anyway");
      assert.equal(await page.getByTestId("retry-note").count(), 0, "no note is asked for what cannot be done");
      assert.deepEqual(unexpected(operator.problems, 409, `/api/v1/messages/${id}/retry`), []);

      const { page: adminPage, problems } = admin;
      await adminPage.goto(`${instance.httpUrl}/#/messages/${id}`, { waitUntil: "load" });
      await adminPage.getByTestId("retry-open").click();
      // An admin may send it past its tries: both facts are stated first, then one note confirms them.
      const facts = adminPage.getByTestId("retry-fact-confirm");
      await facts.waitFor({ timeout: 15_000 });
      const codes = await facts.getByTestId("retry-fact").evaluateAll((ps) => ps.map((p) => p.getAttribute("data-code")).sort());
      assert.deepEqual(codes, ["limit_reached", "will_fail_again"]);
      assert.equal(await adminPage.getByTestId("retry-note").count(), 1, "one note field");
      await adminPage.getByTestId("retry-note").fill("Customer on the phone, identity checked: one more code");
      await adminPage.getByTestId("retry-facts-confirm").click();
      await adminPage.getByTestId("action-done").waitFor({ timeout: 15_000 });
      const { body } = await getJson(`${instance.httpUrl}/api/v1/audit?limit=50`, apiKey);
      const override = body.items.find((e) => e.action === "message.retry_override" && e.subject_id === Number(id));
      assert.equal(override?.actor, ADMIN.name, `the override is audited with the admin's name: ${JSON.stringify(body.items.slice(0, 3))}`);
      assert.equal(override?.note, "Customer on the phone, identity checked: one more code");
      problems.splice(0, problems.length, ...unexpected(problems, 409, `/api/v1/messages/${id}/retry`));
      assert.deepEqual(problems, []);
    } finally {
      await operator.context.close();
    }
  });

  test("Export CSV downloads exactly the filtered set, as the API lists it", async () => {
    const { context, page, problems } = await signedIn(browser, instance.httpUrl, OPERATOR, { locale: "en-US", colorScheme: "light", acceptDownloads: true });
    try {
      await page.getByTestId("message-row").first().waitFor({ timeout: 15_000 });
      await page.getByTestId("filter-state").selectOption("delivered");
      await page.getByTestId("filter-apply").click();
      await page.waitForFunction(() =>
        [...document.querySelectorAll('[data-testid="message-row"]')].every((r) => r.getAttribute("data-state") === "delivered"),
      );
      const { body } = await getJson(`${instance.httpUrl}/api/v1/messages?state=delivered&limit=500`, apiKey);
      const expected = body.items.map((m) => String(m.id)).sort();
      assert.ok(expected.length >= 3, `the story delivered several messages (${expected.length})`);
      assert.ok(body.items.length < (await getJson(`${instance.httpUrl}/api/v1/messages?limit=500`, apiKey)).body.items.length, "the filter leaves some out");

      const download = page.waitForEvent("download", { timeout: 20_000 });
      await page.getByTestId("export-start").click();
      const file = await (await download).path();
      await page.getByTestId("export-done").waitFor({ timeout: 15_000 });
      assert.match(await page.getByTestId("export-done").textContent(), new RegExp(`\\b${expected.length}\\b`));
      const lines = (await readFile(file, "utf8")).trimEnd().split(/\r?\n/);
      assert.match(lines[0], /^id,created_at,/, "the file starts with its header line");
      assert.deepEqual(lines.slice(1).map((l) => l.split(",")[0]).sort(), expected, "one row per message the filter selects, no more");
      await screenshot(page, "messages-filtered.png");
      // Chromium sometimes reports the export's request as aborted once the page has read it to
      // the end and handed the file to the download (seen in about half the runs); the file's
      // whole content is checked above, so only that one report is let through.
      const readToTheEnd = (p) => /^request failed: GET .*\/api\/v1\/messages\/export\?.* \(net::ERR_ABORTED\)$/.test(p);
      assert.deepEqual(problems.filter((p) => !readToTheEnd(p)), [], "the export must work without console errors, failed or remote requests");
    } finally {
      await context.close();
    }
  });

  test("the viewer reads everything and may change nothing: no action controls, and the engine refuses a retry made with the viewer's session", async () => {
    // An open exception for the viewer to look at: the sandbox reports DELIVRD then UNDELIV for 07.
    const sent = await fetch(`${instance.httpUrl}/api/v1/messages`, {
      method: "POST",
      headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
      body: JSON.stringify({ destination: "+33612345607", text: "Viewer test: appointment on Friday" }),
    });
    assert.equal(sent.status, 201, await sent.clone().text());
    const messageId = (await sent.json()).id;
    const exception = await eventually("the conflict opens an exception", async () => {
      const { body } = await getJson(`${instance.httpUrl}/api/v1/exceptions?status=open&limit=100`, apiKey);
      return body.items.find((e) => e.message_id === messageId);
    }, 30_000);

    const { context, page, problems } = await signedIn(browser, instance.httpUrl, VIEWER);
    try {
      assert.equal(await page.getByTestId("user-role").textContent(), "Viewer");
      await page.getByTestId("message-row").first().waitFor({ timeout: 15_000 });
      for (const control of ["send-form", "import-file", "export-start"]) {
        assert.equal(await page.getByTestId(control).count(), 0, `a viewer sees no ${control}`);
      }
      await page.locator(`[data-testid="message-row"][data-id="${messageId}"] [data-testid="message-destination"]`).click();
      await page.locator(`[data-testid="message-detail"][data-id="${messageId}"] [data-testid="statement-network"]`).waitFor({ timeout: 15_000 });
      assert.equal(await page.getByTestId("message-actions").count(), 0, "no retry or cancel for a viewer");

      await page.goto(`${instance.httpUrl}/#/exceptions/${exception.id}`, { waitUntil: "load" });
      await page.getByTestId("resolve-not-yours").waitFor({ timeout: 15_000 });
      assert.equal(await page.getByTestId("resolve-form").count(), 0, "no resolve form for a viewer");
      const tabs = await page.locator(".nav-item").evaluateAll((t) => t.map((e) => e.dataset.testid));
      assert.deepEqual(tabs, ["nav-dashboard", "nav-reports", "nav-messages", "nav-inbox", "nav-exceptions", "nav-alerts", "nav-guardrails", "nav-optouts", "nav-audit", "nav-about"]);

      await page.getByTestId("nav-optouts").click();
      await page.locator('[data-testid="optout-row"][data-phone="+33612345628"]').waitFor({ timeout: 15_000 });
      for (const control of ["optout-add", "optout-import", "optout-remove-open", "optouts-export"]) {
        assert.equal(await page.getByTestId(control).count(), 0, `a viewer sees no ${control}`);
      }
      await page.locator('[data-testid="optout-row"][data-phone="+33612345628"] [data-testid="optout-open-thread"]').click();
      await page.locator('[data-testid="conversation"][data-thread="+33612345628"] [data-testid="thread-item"]').first().waitFor({ timeout: 15_000 });
      for (const control of ["reply-composer", "thread-remove-open", "simulate-reply"]) {
        assert.equal(await page.getByTestId(control).count(), 0, `a viewer sees no ${control}`);
      }

      // The screens only spare the viewer buttons; the engine is what refuses.
      const retry = await fromPage(page, "POST", `/api/v1/messages/${messageId}/retry`, { note: "trying", confirm_duplicate: true, override_limits: false });
      assert.equal(retry.status, 403, `a viewer's retry must be refused: ${JSON.stringify(retry.body)}`);
      assert.equal(retry.body.code, "forbidden");
      const resolve = await fromPage(page, "POST", `/api/v1/exceptions/${exception.id}/resolve`, { action: "dismiss", note: "trying" });
      assert.equal(resolve.status, 403, "a viewer's decision must be refused");
      const keys = await fromPage(page, "GET", "/api/v1/keys");
      assert.equal(keys.status, 403, "a viewer reads no keys");
      const { body: after } = await getJson(`${instance.httpUrl}/api/v1/exceptions/${exception.id}`, apiKey);
      assert.equal(after.exception.status, "open", "nothing the viewer tried changed the exception");
      const provoked = unexpected(unexpected(unexpected(problems, 403, `/api/v1/messages/${messageId}/retry`), 403, `/api/v1/exceptions/${exception.id}/resolve`), 403, "/api/v1/keys");
      assert.deepEqual(provoked, [], "only the refusals the test provoked may fail");

      // An admin ends the viewer's session: that browser is signed out, and told why.
      await admin.page.getByTestId("nav-accounts").click();
      const victor = admin.page.locator('[data-testid="session-row"][data-name="Victor"]');
      await admin.page.getByTestId("sessions-refresh").click();
      await victor.waitFor({ timeout: 15_000 });
      await victor.getByTestId("session-end").click();
      await victor.waitFor({ state: "detached", timeout: 15_000 });
      await page.getByTestId("signin-ended").waitFor({ timeout: 30_000 });
      assert.match(await page.getByTestId("signin-ended").textContent(), /Your session ended/);
      assert.equal(await page.getByTestId("nav-messages").count(), 0, "nothing of the app stays on screen");
    } finally {
      await context.close();
    }
  });

  for (const [locale, language] of [
    ["fr-FR", "fr"],
    ["ru-RU", "ru"],
  ]) {
    test(`in ${language}, no English sentence of the catalogue is left on any screen the admin visits`, async () => {
      const tells = await englishTells(language);
      const { body } = await getJson(`${instance.httpUrl}/api/v1/messages?limit=200`, apiKey);
      const failed = body.items.find((m) => m.status === "failed");
      const exceptions = await getJson(`${instance.httpUrl}/api/v1/exceptions?limit=100`, apiKey);
      const withMessage = exceptions.body.items.find((e) => e.message_id !== null);
      const unmatched = exceptions.body.items.find((e) => e.kind === "uncorrelated");
      assert.ok(failed && withMessage && unmatched, "the story before left a failed message, an exception on a message and an unmatched receipt");
      const failedDetail = (await getJson(`${instance.httpUrl}/api/v1/messages/${failed.id}`, apiKey)).body;
      const engineSentences = [failedDetail.queue.last_error].filter((s) => typeof s === "string" && s.length > 0);
      assert.ok(engineSentences.length > 0, "the failed message has its last problem in the engine's words");
      const places = [
        ...["dashboard", "reports", "messages", "inbox", "exceptions", "alerts", "guardrails", "opt-outs", "audit", "settings", "keys", "accounts", "privacy", "about"].map((s) => `#/${s}`),
        `#/messages/${failed.id}`,
        `#/messages/${withMessage.message_id}`,
        `#/exceptions/${withMessage.id}`,
        `#/exceptions/${unmatched.id}`,
      ];
      const { context, page, problems } = await openUi(browser, instance.httpUrl, { locale, colorScheme: "light" });
      try {
        await page.getByTestId("sign-in").waitFor({ timeout: 15_000 });
        await page.getByTestId("signin-name").fill(ADMIN.name);
        await page.getByTestId("signin-password").fill(ADMIN.password);
        await page.getByTestId("signin-submit").click();
        await page.getByTestId("nav-messages").waitFor({ timeout: 15_000 });
        const found = [];
        for (const place of places) {
          await page.evaluate((hash) => (window.location.hash = hash), place);
          // Loaded when nothing on the page says it is still loading (the event stream never idles).
          await sleep(300);
          await page
            .waitForFunction(() => document.querySelector('[aria-busy="true"], .spinner') === null, null, { timeout: 10_000 })
            .catch(() => {});
          // Open every disclosure, so that evidence is read too.
          await page.locator("details:not([open]) > summary").evaluateAll((all) => all.forEach((s) => s.click()));
          await sleep(400);
          // On the failed message, the retry guard too: what it leads with is read as well.
          if (place === `#/messages/${failed.id}`) {
            await page.getByTestId("retry-open").click();
            await page.locator('[data-testid="retry-fact-confirm"], [data-testid="retry-fact-blocked"]').first().waitFor({ timeout: 10_000 });
          }
          // The browser's own words never show: no native date field ("mm/dd/yyyy"), and no field
          // left to the browser's validation bubbles ("Please fill out this field.").
          const browsers = await page.evaluate(() => [
            ...[...document.querySelectorAll('input[type="date"], input[type="datetime-local"], input[type="time"], input[type="month"]')].map((e) => `a native ${e.getAttribute("type")} field`),
            ...[
              ...document.querySelectorAll(
                'form:not([novalidate]) :is([required], [pattern], [min], [max], [minlength], input[type="email"], input[type="url"], input[type="number"])',
              ),
            ].map((e) => `a field the browser validates (${e.getAttribute("data-testid") ?? e.getAttribute("name") ?? e.tagName})`),
          ]);
          for (const b of browsers) found.push(`${place} ${b}`);
          const text = await page.locator("body").innerText();
          for (const f of englishIn(text, tells)) found.push(`${place} ${f}`);
          // What the engine wrote in English for its logs (a failed message's last problem) is worded, never shown as
          // written: only the evidence quotes it, as the engine's record marked as English (lang="en").
          const worded = await page.evaluate(() => {
            const copy = document.body.cloneNode(true);
            copy.querySelectorAll('[lang="en"]').forEach((e) => e.remove());
            return copy.textContent ?? "";
          });
          for (const sentence of engineSentences) if (worded.includes(sentence)) found.push(`${place} the engine's sentence: ${sentence}`);
          if (place === "#/dashboard") await screenshot(page, `${language}-dashboard.png`);
          if (place === `#/messages/${failed.id}`) await screenshot(page, `${language}-failed-message.png`);
        }
        assert.deepEqual(found, [], `English sentences of the catalogue on ${language} screens`);
        assert.deepEqual(unexpected(problems, 401, "/api/v1/me"), [], "the screens load without console errors, failed or remote requests");
      } finally {
        await context.close();
      }
    });
  }

  test("the UI follows the browser's language and colour scheme", async () => {
    const { context, page, problems } = await openUi(browser, instance.httpUrl, { locale: "fr-FR", colorScheme: "dark" });
    try {
      await page.getByTestId("sign-in").waitFor({ timeout: 15_000 });
      assert.equal(await page.evaluate(() => document.documentElement.lang), "fr");
      assert.equal(await page.getByRole("heading", { level: 2 }).textContent(), "Se connecter");
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.notEqual(background, "rgb(255, 255, 255)", "the dark scheme must not paint a white page");

      await page.getByLabel("Nom", { exact: true }).fill(OPERATOR.name);
      await page.getByLabel("Mot de passe", { exact: true }).fill(OPERATOR.password);
      await page.getByTestId("signin-submit").click();
      await page.getByTestId("nav-about").click();
      await page.getByTestId("info-version").waitFor({ timeout: 15_000 });
      assert.equal(await page.getByRole("heading", { level: 2 }).textContent(), "À propos de cette instance");
      assert.equal(await page.getByTestId("nav-messages").textContent(), "Messages");
      assert.equal(await page.getByTestId("user-role").textContent(), "Opérateur");
      await page.getByTestId("nav-messages").click();
      await page.getByTestId("message-row").first().waitFor({ timeout: 15_000 });
      assert.equal(await page.locator('[data-testid="message-row"][data-state="delivered"] [data-testid="message-state"]').first().textContent(), "Remis");
      await screenshot(page, "messages-fr-dark.png");
      assert.deepEqual(unexpected(problems, 401, "/api/v1/me"), [], "the page must load without console errors, failed or remote requests");
    } finally {
      await context.close();
    }
  });

  test("the office's day in French: a 10,000-row campaign for tomorrow with its 3 bad rows downloaded, a message scheduled, an unmatched receipt settled by picking its message, and the provider connected from the browser by the admin", async () => {
    const provider = await startSandboxSmsc(process.env.SMSDESK_BIN);
    const { context, page, problems } = await signedIn(browser, instance.httpUrl, ADMIN, { locale: "fr-FR", colorScheme: "light", acceptDownloads: true });
    try {
      const ui = storyUi(page);
      await inFrench(ui);
      const csv = path.join(dataDir, "campagne.csv");
      await writeFile(csv, campaignCsv());
      await importCampaign(ui, csv);
      await scheduleMessage(ui);
      await pickTheGhostsMessage(ui);
      await connectProvider(ui, provider.port);
      assert.deepEqual(problems, [], "the day plays without console errors, failed or remote requests");
    } finally {
      await context.close();
      provider.child.kill("SIGTERM");
    }
  });

  test("a second connection from the screens: a sandbox backup beside the provider and a route over both, saved from Settings; both links on the dashboard, the provider drained with a note and enabled again", async () => {
    const { context, page, problems } = await signedIn(browser, instance.httpUrl, ADMIN);
    try {
      const ui = storyUi(page);
      await addBackupConnection(ui);
      await drainTheProvider(ui);
      assert.deepEqual(problems, [], "no console errors, failed or remote requests");
    } finally {
      await context.close();
    }
  });

  test("the delivery report: last week by connection shows the backup's delivered share beside the provider's, and its failed figure opens exactly its failed messages", async () => {
    const { context, page, problems } = await signedIn(browser, instance.httpUrl, ADMIN);
    try {
      const ui = storyUi(page);
      await sendOnTheBackup(ui);
      await failingConnectionInTheReport(ui);
      assert.deepEqual(problems, [], "no console errors, failed or remote requests");
    } finally {
      await context.close();
    }
  });

  test("personal data: a one-time code is shown masked; an admin gets everything held about its number, then erases it, and the message keeps its facts only", async () => {
    const { context, page, problems } = await signedIn(browser, instance.httpUrl, ADMIN);
    try {
      const ui = storyUi(page);
      const id = await codeShownMasked(ui);
      await accessThenErase(ui, id);
      assert.deepEqual(problems, [], "no console errors, failed or remote requests");
    } finally {
      await context.close();
    }
  });

  test("alerts: the open exceptions made to fire one, on the dashboard and the Alerts screen; acknowledged with a note, then resolved and in the history", async () => {
    const { context, page, problems } = await signedIn(browser, instance.httpUrl, ADMIN);
    try {
      await alertFiresAndEnds(storyUi(page));
      assert.deepEqual(problems, [], "no console errors, failed or remote requests");
    } finally {
      await context.close();
    }
  });

  test("signing out ends the session on the server, not only on screen", async () => {
    const { context, page, problems } = await signedIn(browser, instance.httpUrl, OPERATOR);
    try {
      // Signing out while the list still loads would leave its request to meet the ended session.
      await page.getByTestId("message-row").first().waitFor({ timeout: 15_000 });
      await page.getByTestId("user-menu-button").click();
      assert.match(await page.getByTestId("user-menu-panel").textContent(), /Signed in as Olga, Operator\./);
      // Before signing in, the page asked who it was and was told no one (a 401 of /me).
      assert.deepEqual(unexpected(problems, 401, "/api/v1/me"), [], "nothing went wrong while signed in");
      await page.getByTestId("sign-out").click();
      await page.getByTestId("sign-in").waitFor({ timeout: 15_000 });
      assert.equal(await page.getByTestId("signin-ended").count(), 0, "a chosen sign-out is not an ended session");
      const me = await page.evaluate(async () => (await fetch("/api/v1/me")).status);
      assert.equal(me, 401, "the cookie's session no longer works");
      // A refresh the live updates had under way as the session ended meets it ended: a 401, and
      // nothing else, is what may follow a sign-out.
      assert.deepEqual(unexpected(problems, 401, ""), []);
    } finally {
      await context.close();
    }
  });

  test("SIGTERM stops the server cleanly", async () => {
    assert.ok(server.running, `the server must still be running before SIGTERM${server.log()}`);
    server.child.kill("SIGTERM");
    const exit = await server.waitForExit(EXIT_TIMEOUT_MS);
    assert.ok(exit, `the server must exit within ${EXIT_TIMEOUT_MS / 1000} s of SIGTERM${server.log()}`);
    assert.equal(exit.signal, null, `the server must exit by itself, not die of ${exit.signal}${server.log()}`);
    assert.equal(exit.code, 0, `the server must exit with code 0 after SIGTERM${server.log()}`);
  });
});

// A `smsdesk serve` of a describe's own, on a data directory whose smsdesk.toml is `config`, with
// its first admin made and a browser: started before its tests, stopped after. Its fields are
// read inside the tests (`own.server`, `own.dataDir`, `own.browser`).
function ownInstance(prefix, config) {
  const own = {};
  before(async () => {
    const bin = process.env.SMSDESK_BIN;
    if (!bin) throw new Error("SMSDESK_BIN is not set: point it at the smsdesk server binary");
    own.dataDir = await mkdtemp(path.join(tmpdir(), prefix));
    await writeFile(path.join(own.dataDir, "smsdesk.toml"), config);
    own.server = await startServe(bin, own.dataDir);
    own.browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: CHROMIUM_ARGS });
    const token = new URL(own.server.setupLink).hash.slice(1);
    const made = await fetch(new URL("/api/v1/setup", own.server.url), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ token, name: ADMIN.name, password: ADMIN.password }),
    });
    assert.equal(made.status, 201, `the first admin is made: ${await made.text()}${own.server.log()}`);
  });
  after(async () => {
    await own.browser?.close().catch(() => {});
    await own.server?.stop();
    if (own.dataDir) await rm(own.dataDir, { recursive: true, force: true });
  });
  return own;
}

// An instance of its own, started with prices and a spend limit in its config file (the story above
// runs on an instance left as installed, where nothing is priced).
describe("guardrails: smart encoding, a refused country, costs before sending, and the spend", { timeout: 300_000 }, () => {
  const own = ownInstance("smsdesk-guardrails-", GUARDRAILS_CONFIG);

  test("a French text goes in one part with its cost shown; a code to Great Britain is refused before it is sent and counted; the import shows its cost; the Guardrails screen shows the refusal and the spend", async () => {
    const { context, page, problems } = await signedIn(own.browser, own.server.url, ADMIN);
    try {
      const ui = storyUi(page);
      const id = await smartEncodingSavesAPart(ui);
      await otpToBritainRefused(ui);
      await aFewMessages(ui);
      await bothTextsOnTheMessage(ui, id);
      const csv = path.join(own.dataDir, "rappels.csv");
      await writeFile(csv, GUARDRAILS_CSV);
      await importShowsItsCost(ui, csv);
      await guardrailsScreen(ui);
      await spendOnTheDashboard(ui);
      // The code sent anyway to Great Britain was refused, as it was meant to be: 422, and the console's line for it.
      assert.deepEqual(unexpected(problems, 422, "/api/v1/messages"), [], "no console errors, failed or remote requests");
    } catch (error) {
      error.message += own.server.log();
      throw error;
    } finally {
      await context.close();
    }
  });
});

// An instance of its own, started with smsdesk's SMPP server on (on a port the system picks) and a
// provider's connection beside the sandbox in its config file.
describe("the SMPP server and TLS to a provider: an SMPP account, its client bound on the dashboard, a connection switched to TLS", { timeout: 300_000 }, () => {
  const own = ownInstance("smsdesk-smpp-", SMPP_CONFIG);

  test("an SMPP account for the PBX, its password shown once; the PBX bound on the dashboard's SMPP server card; the provider's connection switched to TLS with a pin, saved and still so after a reload", async () => {
    const { context, page, problems } = await signedIn(own.browser, own.server.url, ADMIN);
    try {
      const ui = storyUi(page);
      const password = await createSmppAccount(ui);
      await smppServerCard(ui, password);
      await connectionOverTls(ui);
      assert.deepEqual(problems, [], "no console errors, failed or remote requests");
    } catch (error) {
      error.message += own.server.log();
      throw error;
    } finally {
      await context.close();
    }
  });
});
