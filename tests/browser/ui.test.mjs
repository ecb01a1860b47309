// End-to-end: the real server binary in `serve` mode, its UI opened in headless Chromium.
//
//   SMSDESK_BIN=path/to/smsdesk [CHROMIUM=path/to/chromium] [SCREENSHOT_DIR=dir] npm test

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { chromium } from "playwright-core";

const READY_TIMEOUT_MS = 30_000;
const EXIT_TIMEOUT_MS = 15_000;
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** The running server: its process, where it keeps data, what it printed, and how it ended. */
class Server {
  constructor(bin, dataDir) {
    this.dataDir = dataDir;
    this.stdout = "";
    this.stderr = "";
    this.exit = null;
    this.child = spawn(bin, ["serve", "--data-dir", dataDir, "--http-port", "0"], {
      env: { ...process.env, RUST_LOG: "info" },
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

  /** Resolves with how the process ended, or null if it is still running after `ms`. */
  async waitForExit(ms) {
    return Promise.race([this.exited, sleep(ms).then(() => null)]);
  }
}

async function getJson(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" } });
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
  const page = await context.newPage();
  const problems = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console error: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`uncaught exception: ${error.message}`));
  page.on("requestfailed", (request) =>
    problems.push(`request failed: ${request.method()} ${request.url()} (${request.failure()?.errorText})`),
  );
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()} for ${response.url()}`);
  });
  const response = await page.goto(url, { waitUntil: "load" });
  assert.equal(response?.status(), 200, `the UI must be served at ${url}`);
  return { context, page, problems };
}

async function screenshot(page, name) {
  const dir = process.env.SCREENSHOT_DIR;
  if (!dir) return;
  await mkdir(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, name), fullPage: true });
}

describe("smsdesk serve: HTTP API and UI in a browser", { timeout: 120_000 }, () => {
  let dataDir;
  let server;
  let instance;
  let info;
  let browser;

  before(async () => {
    const bin = process.env.SMSDESK_BIN;
    if (!bin) {
      throw new Error("SMSDESK_BIN is not set: point it at the smsdesk server binary, e.g. SMSDESK_BIN=target/debug/smsdesk");
    }
    dataDir = await mkdtemp(path.join(tmpdir(), "smsdesk-ui-test-"));
    server = new Server(bin, dataDir);
    instance = await server.waitForInstance();
  });

  after(async () => {
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

  test("GET /api/v1/health answers status ok", async () => {
    const { status, contentType, body } = await getJson(`${instance.httpUrl}/api/v1/health`);
    assert.equal(status, 200, server.log());
    assert.match(contentType, /^application\/json/);
    assert.equal(body.status, "ok");
    assert.equal(typeof body.version, "string");
    assert.ok(Number.isInteger(body.schemaVersion) && body.schemaVersion >= 1, `schemaVersion ${body.schemaVersion} must be ≥ 1`);
  });

  test("GET /api/v1/info describes this instance", async () => {
    const { status, contentType, body } = await getJson(`${instance.httpUrl}/api/v1/info`);
    assert.equal(status, 200, server.log());
    assert.match(contentType, /^application\/json/);
    info = body;
    assert.equal(info.product, "smsdesk");
    assert.equal(info.mode, "serve");
    assert.equal(typeof info.version, "string");
    assert.ok(info.version.length > 0, "version must not be empty");
    assert.equal(info.dataDir, dataDir, "dataDir must be the folder given with --data-dir");
    assert.ok(info.databasePath.startsWith(dataDir), `the database ${info.databasePath} must live in the data folder`);
    assert.equal(typeof info.configPath, "string");
    assert.ok(Number.isInteger(info.schemaVersion) && info.schemaVersion >= 1, `schemaVersion ${info.schemaVersion} must be ≥ 1`);
    assert.equal(info.httpUrl, instance.httpUrl, "info.httpUrl must be the address written to instance.json");
    assert.ok(Number.isFinite(info.startedAtMs) && info.startedAtMs <= Date.now(), "startedAtMs must be a past instant");
  });

  test("an unknown API route answers a JSON ApiError", async () => {
    const { status, body } = await getJson(`${instance.httpUrl}/api/v1/no-such-route`);
    assert.equal(status, 404);
    assert.equal(typeof body.code, "string");
    assert.equal(typeof body.message, "string");
  });

  test("the About panel shows what the API reports", async () => {
    assert.ok(info, "needs the /api/v1/info answer from the test before");
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
      args: CHROMIUM_ARGS,
    });
    const { context, page, problems } = await openUi(browser, instance.httpUrl, { locale: "en-US", colorScheme: "light" });
    try {
      await page.getByTestId("info-version").waitFor({ timeout: 15_000 });

      assert.equal(await page.getByRole("heading", { level: 1 }).textContent(), "smsdesk");
      assert.equal(await page.getByTestId("info-version").textContent(), info.version);

      const mode = page.getByTestId("info-mode");
      assert.equal(await mode.getAttribute("data-mode"), "serve");
      assert.match(await mode.textContent(), /Headless server/);
      assert.match(await mode.textContent(), /serve/);

      const schema = page.getByTestId("info-schema-version");
      assert.equal(Number(await schema.getAttribute("data-value")), info.schemaVersion);
      assert.ok(Number(await schema.textContent()) >= 1, "the schema version shown must be ≥ 1");

      assert.equal(await page.getByTestId("info-data-dir").textContent(), info.dataDir);
      assert.equal(await page.getByTestId("info-database-path").textContent(), info.databasePath);
      assert.equal(await page.getByTestId("info-config-path").textContent(), info.configPath);

      const link = page.getByTestId("info-http-url");
      assert.equal(await link.evaluate((el) => el.tagName), "A", "the HTTP address must be a link");
      assert.equal(await link.getAttribute("href"), info.httpUrl);

      const started = await page.getByTestId("info-started-at").getAttribute("datetime");
      assert.equal(Date.parse(started), info.startedAtMs);

      // The link is the only interactive element: the first Tab must reach it, visibly.
      await page.keyboard.press("Tab");
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "info-http-url");

      await screenshot(page, "about.png");
      assert.deepEqual(problems, [], "the page must load without console errors or failed requests");
    } finally {
      await context.close();
    }
  });

  test("the UI follows the browser's language and colour scheme", async () => {
    assert.ok(browser, "needs the browser from the test before");
    const { context, page, problems } = await openUi(browser, instance.httpUrl, { locale: "fr-FR", colorScheme: "dark" });
    try {
      await page.getByTestId("info-version").waitFor({ timeout: 15_000 });
      assert.equal(await page.evaluate(() => document.documentElement.lang), "fr");
      assert.equal(await page.getByRole("heading", { level: 2 }).textContent(), "À propos de cette instance");
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.notEqual(background, "rgb(255, 255, 255)", "the dark scheme must not paint a white page");
      await screenshot(page, "about-fr-dark.png");
      assert.deepEqual(problems, [], "the page must load without console errors or failed requests");
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
