// `smsdesk serve` started for a browser test on a fresh data folder: its address once it answers,
// the first admin's setup link it prints, and a way to stop it; and the UI's files served from a
// folder of its own (UI_DIR) instead of the binary's.

import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

const READY_MS = 30_000;

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml", ".png": "image/png", ".woff2": "font/woff2" };

/**
 * With UI_DIR set (such as ui/dist), the pages of `context` get the UI's files from that folder
 * rather than from the binary, which holds the UI it was built with; the API still answers from the
 * server at `url`. A change of the UI is then tested after `npm run build` alone.
 */
export async function serveUiFrom(context, url, dir = process.env.UI_DIR) {
  if (!dir) return;
  await context.route(
    (u) => u.origin === new URL(url).origin && !u.pathname.startsWith("/api/"),
    async (route) => {
      const { pathname } = new URL(route.request().url());
      const file = path.extname(pathname) === "" ? "index.html" : pathname.slice(1);
      const body = await readFile(path.join(dir, file)).catch(() => null);
      if (body === null) return route.fulfill({ status: 404, body: "" });
      return route.fulfill({ status: 200, body, contentType: TYPES[path.extname(file)] ?? "application/octet-stream" });
    },
  );
}

/** How the browser tests start Chromium: headless, and nothing it would fetch from elsewhere. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Starts the server, with `env` added to its environment (settings such as
 * SMSDESK_ALERTS_CHECK_SECONDS); resolves once instance.json names its address and it printed the
 * setup link.
 */
export async function startServe(bin, dataDir, env = {}) {
  let stderr = "";
  const child = spawn(bin, ["serve", "--data-dir", dataDir, "--http-port", "0"], {
    env: { ...process.env, RUST_LOG: "info", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  let ended = null;
  void exited.then((how) => (ended = how));
  const tail = () => `\n--- server stderr ---\n${stderr.slice(-4000)}`;

  const deadline = Date.now() + READY_MS;
  let url = null;
  let setupLink = null;
  while (url === null || setupLink === null) {
    if (ended !== null) throw new Error(`the server ended (${JSON.stringify(ended)}) before it was ready${tail()}`);
    if (Date.now() > deadline) throw new Error(`the server was not ready within ${READY_MS / 1000} s${tail()}`);
    try {
      const instance = JSON.parse(await readFile(path.join(dataDir, "instance.json"), "utf8"));
      if (typeof instance.httpUrl === "string") url = instance.httpUrl;
    } catch {
      // Not written yet, or caught half-written.
    }
    setupLink = /Create the first admin within \d+ minutes at\s+(http:\/\/\S+\/setup#setup_[0-9a-f]+)/.exec(stderr)?.[1] ?? null;
    await sleep(100);
  }
  return {
    url,
    setupLink,
    log: tail,
    async stop() {
      if (ended !== null) return;
      child.kill("SIGTERM");
      await Promise.race([exited, sleep(15_000).then(() => child.kill("SIGKILL"))]);
    },
  };
}
