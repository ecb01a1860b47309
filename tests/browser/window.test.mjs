// End-to-end: the real desktop window (Tauri on WebKitGTK), driven over W3C WebDriver through
// tauri-driver and WebKitWebDriver, on a virtual X display (Xvfb). The engine runs inside the
// window's process, on the embedded sandbox SMSC, as it does for an office on first start.
//
//   SMSDESK_BIN=path/to/smsdesk [TAURI_DRIVER=path/to/tauri-driver] [SCREENSHOT_DIR=dir] npm test

import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";

import {
  attachGhostReceipt,
  CSV_FILE,
  eventually,
  importCsv,
  longMessageInParts,
  openSection,
  optOutByReply,
  replyInInbox,
  resolveConflict,
  retryFailed,
  sendAndWatchDelivered,
  tid,
} from "./story.mjs";
import { findByNationalNumber, retryOptedOutSaysWhyAtOnce, scheduledIsNotInThePace, setOfficeCountry, templateFilledOrRefused } from "./story_day.mjs";
import { campaignCsv, connectProvider, importCampaign, inFrench, pickTheGhostsMessage, scheduleMessage, startSandboxSmsc } from "./story_fr.mjs";

const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

/** The first program that exists: an explicit path, then cargo's bin folder, then PATH. */
function tauriDriver() {
  const candidates = [process.env.TAURI_DRIVER, path.join(process.env.CARGO_HOME ?? path.join(homedir(), ".cargo"), "bin", "tauri-driver")];
  return candidates.find((c) => c && existsSync(c)) ?? "tauri-driver";
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A child process whose output is kept, to make a failure explain itself. */
function start(program, args, env) {
  const child = spawn(program, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const proc = { child, output: "", exit: null };
  child.stdout.setEncoding("utf8").on("data", (c) => (proc.output += c));
  child.stderr.setEncoding("utf8").on("data", (c) => (proc.output += c));
  proc.exited = new Promise((resolve) => {
    child.once("error", (error) => resolve((proc.exit = { error })));
    child.once("exit", (code, signal) => resolve((proc.exit = { code, signal })));
  });
  return proc;
}

async function stop(proc) {
  if (proc && proc.exit === null) {
    proc.child.kill("SIGTERM");
    if ((await Promise.race([proc.exited, sleep(5_000).then(() => null)])) === null) {
      proc.child.kill("SIGKILL");
      await proc.exited;
    }
  }
}

/** Xvfb on a display number nobody uses. */
async function virtualDisplay() {
  for (let n = 190; n < 290; n++) {
    if (existsSync(`/tmp/.X11-unix/X${n}`) || existsSync(`/tmp/.X${n}-lock`)) continue;
    const xvfb = start("Xvfb", [`:${n}`, "-screen", "0", "1280x800x24", "-nolisten", "tcp"], {});
    const ready = Date.now() + 10_000;
    while (Date.now() < ready && xvfb.exit === null) {
      if (existsSync(`/tmp/.X11-unix/X${n}`)) return { xvfb, display: `:${n}` };
      await sleep(50);
    }
    await stop(xvfb);
    if (xvfb.exit?.error) throw new Error(`Xvfb cannot start (cargo xtask setup installs it): ${xvfb.exit.error.message}`);
  }
  throw new Error("no free X display number for Xvfb");
}

/** A W3C WebDriver session on tauri-driver. */
class Session {
  constructor(base, id) {
    this.base = base;
    this.id = id;
  }

  static async create(base, application) {
    const body = { capabilities: { alwaysMatch: { "tauri:options": { application } } } };
    const answer = await request(base, "POST", "/session", body);
    return new Session(base, answer.sessionId);
  }

  call(method, route, body) {
    return request(this.base, method, `/session/${this.id}${route}`, body);
  }

  async find(selector) {
    const found = await this.call("POST", "/elements", { using: "css selector", value: selector });
    return found.length > 0 ? found[0][ELEMENT] : null;
  }

  /** Reads the DOM as Playwright's textContent/getAttribute do, so both engines answer alike. */
  script(source, ...args) {
    return this.call("POST", "/execute/sync", { script: source, args });
  }

  close() {
    return this.call("DELETE", "");
  }
}

async function request(base, method, route, body) {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : {};
  if (!response.ok) {
    const v = parsed.value ?? {};
    throw new Error(`WebDriver ${method} ${route}: ${response.status} ${v.error ?? ""} ${v.message ?? text}`);
  }
  return parsed.value;
}

/** The story's verbs (story.mjs) over WebDriver. */
function storyUi(session, screenshotPrefix) {
  const element = (sel) => eventually(`an element ${sel}`, () => session.find(sel), 15_000);
  return {
    async click(sel) {
      const el = await element(sel);
      // WebDriver scrolls only until the element shows; a sticky bar may still cover it there.
      await session.script("arguments[0].scrollIntoView({ block: 'center' })", { [ELEMENT]: el });
      await session.call("POST", `/element/${el}/click`, {});
    },
    async fill(sel, text) {
      const el = await element(sel);
      await session.call("POST", `/element/${el}/click`, {});
      // Select what is there and type over it, as a person does (React sees every keystroke).
      await session.call("POST", `/element/${el}/value`, { text: "\uE009a\uE000\uE003" });
      await session.call("POST", `/element/${el}/value`, { text });
    },
    async setFile(sel, file) {
      const el = await element(sel);
      await session.call("POST", `/element/${el}/value`, { text: file });
    },
    // A value set as the browser would set it, so that React sees the change (dates, choices).
    async setValue(sel, value) {
      await element(sel);
      await session.script(
        `const e = document.querySelector(arguments[0]);
         const proto = e instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
         Object.getOwnPropertyDescriptor(proto, "value").set.call(e, arguments[1]);
         e.dispatchEvent(new Event("input", { bubbles: true }));
         e.dispatchEvent(new Event("change", { bubbles: true }));`,
        sel,
        value,
      );
    },
    select(sel, value) {
      return this.setValue(sel, value);
    },
    waitFor: (sel, ms = 15_000) => eventually(`an element ${sel}`, () => session.find(sel), ms),
    count: (sel) => session.script("return document.querySelectorAll(arguments[0]).length", sel),
    text: (sel) => session.script("const e = document.querySelector(arguments[0]); return e ? e.textContent : null", sel),
    attr: (sel, name) => session.script("const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null", sel, name),
    async screenshot(name) {
      const dir = process.env.SCREENSHOT_DIR;
      if (!dir) return;
      await mkdir(dir, { recursive: true });
      const png = await session.call("GET", "/screenshot");
      await writeFile(path.join(dir, `${screenshotPrefix}${name}`), Buffer.from(png, "base64"));
    },
  };
}

/** Everything the window's process logged so far (its daily log files in the data folder). */
async function windowLog(dataDir) {
  const dir = path.join(dataDir, "logs");
  const files = existsSync(dir) ? (await readdir(dir)).sort() : [];
  const parts = await Promise.all(files.map((f) => readFile(path.join(dir, f), "utf8")));
  return parts.join("");
}

describe("the desktop window, driven through tauri-driver and WebKitWebDriver under Xvfb", { timeout: 900_000 }, () => {
  let bin;
  let dataDir;
  let display;
  let driver;
  let base;
  let session;
  let ui;
  /** The sandbox SMSC run apart that the French story connects the window to, as its provider. */
  let provider;
  /** The message sent to the number that then opted out by reply. */
  let optedOutMessage;

  const driverLog = () => `\n--- tauri-driver and window output ---\n${(driver?.output ?? "").slice(-6000)}\n---`;

  async function openWindow() {
    session = await Session.create(base, bin);
    ui = storyUi(session, "window-");
    await ui.waitFor(tid("nav-messages"), 30_000);
    // The web view keeps its storage in the user's home, across runs: a language or theme chosen
    // in an earlier run (the French day chooses French) would still be in force.
    await ui.setValue(tid("display-language"), "system");
    await ui.setValue(tid("display-theme"), "system");
    await eventually("the window follows the system's language", async () => (await ui.attr("html", "lang")) === "en");
  }

  before(async () => {
    bin = process.env.SMSDESK_BIN;
    if (!bin) throw new Error("SMSDESK_BIN is not set: point it at the smsdesk binary, e.g. SMSDESK_BIN=target/debug/smsdesk");
    bin = path.resolve(bin);
    dataDir = await mkdtemp(path.join(tmpdir(), "smsdesk-window-test-"));
    display = await virtualDisplay();
    const port = await freePort();
    const nativePort = await freePort();
    driver = start(tauriDriver(), ["--port", String(port), "--native-port", String(nativePort)], {
      DISPLAY: display.display,
      // Lets WebKitWebDriver automate the window's web view (read by Tauri at start).
      TAURI_WEBVIEW_AUTOMATION: "true",
      SMSDESK_DATA_DIR: dataDir,
      SMSDESK_HTTP_PORT: "0",
      RUST_LOG: "info",
    });
    base = `http://127.0.0.1:${port}`;
    await eventually(
      "tauri-driver answering /status",
      async () => {
        if (driver.exit) throw new Error(`tauri-driver ended: ${JSON.stringify(driver.exit)} (cargo xtask setup installs it)${driverLog()}`);
        return (await fetch(`${base}/status`)).ok;
      },
      20_000,
    );
    await openWindow();
  });

  after(async () => {
    provider?.child.kill("SIGTERM");
    await session?.close().catch(() => {});
    await stop(driver);
    if (display) await stop(display.xvfb);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  test("the window opens on the app itself (the window is the operator: no sign-in), on the sandbox", async () => {
    assert.equal(await session.call("GET", "/title"), "smsdesk");
    assert.equal(await ui.count(tid("sign-in")), 0, "the window needs no sign-in");
    await ui.waitFor(tid("user-menu", '[data-kind="local"]'));
    assert.equal(await ui.attr(tid("user-role"), "data-role"), "admin", "the window is its computer's admin");
    assert.equal(await ui.count(tid("sign-out")), 0, "nobody signs out of the window");
    assert.equal(await ui.count(tid("nav-accounts")), 1, "the window manages accounts too");
    assert.match(await ui.text(tid("sandbox-banner")), /^Sandbox: no real SMS is sent\./);
    await openSection(ui, "dashboard");
    await ui.waitFor(tid("link-state", '[data-state="bound"]'), 20_000);
    await openSection(ui, "about");
    await ui.waitFor(tid("info-mode", '[data-mode="window"]'));
    assert.equal(await ui.text(tid("info-data-dir")), dataDir);
  });

  test("the operator's story: delivered, a conflict resolved with a note, a failed message retried, a CSV imported, a long message part by part, a silent accept settled by its receipt", async () => {
    try {
      await sendAndWatchDelivered(ui);
      await resolveConflict(ui);
      await retryFailed(ui);
      const csv = path.join(dataDir, "import.csv");
      await writeFile(csv, CSV_FILE);
      await importCsv(ui, csv);
      await longMessageInParts(ui);
      await attachGhostReceipt(ui);
      await openSection(ui, "dashboard");
      await ui.waitFor(tid("dashboard-figures"));
      await ui.screenshot("dashboard.png");
    } catch (error) {
      error.message += driverLog();
      throw error;
    }
  });

  test("replies and opt-outs over the window's commands: a handset's answer in the Inbox, an 'Arrêt' on the opt-out list, a new message to it refused", async () => {
    try {
      await replyInInbox(ui);
      optedOutMessage = await optOutByReply(ui);
    } catch (error) {
      error.message += driverLog();
      throw error;
    }
  });

  test("the operator's day in the window: the office's country chosen in Settings, a number found as typed there, a template refused with its empty value named then sent filled, a message for tomorrow kept out of the pace, and a retry to an opted-out number refused at once", async () => {
    assert.ok(optedOutMessage, "needs the message to the number that opted out, from the test before");
    try {
      await setOfficeCountry(ui, "FR");
      await findByNationalNumber(ui);
      await templateFilledOrRefused(ui);
      await scheduledIsNotInThePace(ui);
      await retryOptedOutSaysWhyAtOnce(ui, optedOutMessage);
    } catch (error) {
      error.message += driverLog();
      throw error;
    }
  });

  test("the operator manages API keys in the window; a new key is shown once", async () => {
    await openSection(ui, "keys");
    await ui.waitFor(tid("create-key-form"));
    await ui.fill(`${tid("create-key-form")} input`, "Website");
    await ui.click(`${tid("create-key-form")} button[type="submit"]`);
    await ui.waitFor(tid("created-key-value"));
    assert.match(await ui.text(tid("created-key-value")), /^sdk_/);
    await ui.waitFor(tid("key-row"));
    assert.doesNotMatch(await ui.text(tid("keys-table")), /sdk_[A-Za-z0-9_-]{20,}/, "the list never shows a whole key");
    await ui.screenshot("api-keys.png");
  });

  test("the window's admin adds a person's account for the browser, and sees no browser signed in yet", async () => {
    await openSection(ui, "accounts");
    await ui.waitFor(tid("account-create-form"));
    assert.equal(await ui.count(tid("account-row")), 0, "a new instance has no account");
    await ui.fill(tid("new-account-name"), "Olga");
    await ui.fill(tid("new-account-password"), "olga's long password");
    await ui.fill(tid("new-account-confirm"), "olga's long password");
    await ui.click(tid("new-account-submit"));
    await ui.waitFor(tid("account-row", '[data-name="Olga"][data-role="operator"]'));
    assert.match(await ui.text(tid("account-created")), /Olga can now sign in, as Operator/);
    assert.match(await ui.text(tid("accounts")), /Nobody is signed in from a browser/);
  });

  test("the operator's settings: the sandbox connection tested for real; the audit log records what the story did", async () => {
    await openSection(ui, "settings");
    await ui.waitFor(tid("settings-form"), 20_000);
    await ui.click(tid("test-connection"));
    await ui.waitFor(tid("test-result"), 20_000);
    assert.equal(await ui.attr(tid("test-result"), "data-outcome"), "bound", await ui.text(tid("test-result")));
    await ui.screenshot("settings.png");

    await openSection(ui, "audit");
    await ui.waitFor(tid("audit-table"), 20_000);
    const audit = await ui.text(tid("audit-table"));
    assert.match(audit, /Customer called: the phone was switched off all day/, "the resolution's note is in the audit log");
    assert.match(audit, /Number corrected by the customer on the phone/, "the manual retry's note is in the audit log");
    await ui.screenshot("audit.png");
  });

  test("the tray shows the link, and the new conflict raised a desktop notification", async () => {
    const log = await eventually("the tray status and the notification in the log", async () => {
      const text = await windowLog(dataDir);
      return /tray status.*Connected to the sandbox/.test(text) && /desktop notification.*Conflicting delivery receipts/.test(text) ? text : undefined;
    }).catch(async (error) => {
      const lines = (await windowLog(dataDir)).split("\n").filter((l) => /tray|notification|desktop|WARN|ERROR/.test(l));
      error.message += `\n--- what the log says of the desktop ---\n${lines.join("\n")}`;
      throw error;
    });
    const notes = log.split("\n").filter((l) => l.includes("desktop notification"));
    assert.equal(notes.filter((l) => l.includes("Conflicting delivery receipts")).length, 1, `one conflict, one notification:\n${notes.join("\n")}`);
    assert.match(notes.join("\n"), /got two final receipts that disagree/);
  });

  test("the office's day in French, in the window: a 10,000-row campaign for tomorrow with its 3 bad rows, a message scheduled, an unmatched receipt settled by picking its message, and the provider connected", async () => {
    // The provider stays up for the tests after this one (the link is expected bound), until `after`.
    provider = await startSandboxSmsc(bin);
    try {
      await inFrench(ui);
      const csv = path.join(dataDir, "campagne.csv");
      await writeFile(csv, campaignCsv());
      await importCampaign(ui, csv);
      await scheduleMessage(ui);
      await pickTheGhostsMessage(ui);
      await connectProvider(ui, provider.port);
    } catch (error) {
      error.message += driverLog();
      throw error;
    }
  });

  test("the window's process logged no error while the story played", async () => {
    const log = await windowLog(dataDir);
    assert.match(log, /window UI connected/, "the log must be the window's");
    const errors = log.split("\n").filter((l) => /\bERROR\b|panicked/.test(l));
    assert.deepEqual(errors, []);
  });
  test("a second start on the same data folder brings the running window to the front instead of opening another", async () => {
    const { code, output } = await new Promise((resolve) => {
      execFile(bin, [], { env: { ...process.env, DISPLAY: display.display, SMSDESK_DATA_DIR: dataDir, RUST_LOG: "warn" }, timeout: 30_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? error.code : 0, output: stdout + stderr }),
      );
    });
    assert.equal(code, 0, `the second start ends by itself, successfully:\n${output}`);
    assert.match(output, /already running on this data directory; its window was brought to the front/);
    await eventually("the first window heard the request", async () => /bringing the window to the front/.test(await windowLog(dataDir)));
    // The first one is unharmed, and still the only one.
    await openSection(ui, "dashboard");
    await ui.waitFor(tid("link-state", '[data-state="bound"]'));
    assert.equal((await session.call("GET", "/window/handles")).length, 1);
  });

  test("the window opens again where and as large as the operator left it", async () => {
    await session.call("POST", "/window/rect", { x: 60, y: 40, width: 1000, height: 700 });
    const set = await session.call("GET", "/window/rect");
    assert.deepEqual([set.width, set.height], [1000, 700], "the window took the size asked for");
    await eventually("window.json written after the resize settles", async () => {
      const saved = JSON.parse(await readFile(path.join(dataDir, "window.json"), "utf8"));
      return saved.width === 1000 && saved.height === 700 ? saved : undefined;
    });
    const { pid } = JSON.parse(await readFile(path.join(dataDir, "instance.json"), "utf8"));
    await session.close();
    session = null;
    await eventually("the first window's process has ended", () => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    });
    await openWindow();
    const again = await session.call("GET", "/window/rect");
    assert.deepEqual([again.x, again.y, again.width, again.height], [set.x, set.y, 1000, 700]);
    await ui.screenshot("window.png");
  });
});
