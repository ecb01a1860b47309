// @vitest-environment happy-dom
import { act } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../../backend";
import type { ConnectionEdit } from "../../bindings/ConnectionEdit";
import type { ConnectionsUpdate } from "../../bindings/ConnectionsUpdate";
import type { ConnectionsView } from "../../bindings/ConnectionsView";
import type { ConnectionTest } from "../../bindings/ConnectionTest";
import type { RouteEdit } from "../../bindings/RouteEdit";
import type { SettingsSaved } from "../../bindings/SettingsSaved";
import { byTestId, click, queryTestId, render, settle, type, type Rendered } from "../../test/dom";
import { FakeBackend } from "../../test/fakeBackend";
import { Settings } from "../Settings";
import { ConnectionsEditor, splitList } from "./Connections";

function connection(name: string, more: Partial<ConnectionEdit> = {}): ConnectionEdit {
  return {
    name,
    sandbox: false,
    host: `smpp.${name}.example`,
    port: 2775,
    system_id: `office-${name}`,
    system_type: "",
    bind_mode: "transceiver",
    binds: 1,
    window: 10,
    tps: 10,
    source_addr: "ACME",
    enabled: true,
    password: null,
    password_set: true,
    ...NO_TLS,
    ...more,
  };
}

/** A connection's TLS as saved without it. */
const NO_TLS = {
  tls: false,
  tls_ca_file: "",
  tls_server_name: "",
  tls_pin_sha256: "",
  tls_client_cert_file: "",
  tls_client_key_file: "",
} as const;
const PIN = "ab".repeat(32);

function route(name: string, connections: string[], more: Partial<RouteEdit> = {}): RouteEdit {
  return { name, prefixes: [], countries: [], kinds: [], api_keys: [], connections, ...more };
}

/** Two providers and the sandbox; French one-time codes go to acme first, the rest to backup first. */
function view(more: Partial<ConnectionsView> = {}): ConnectionsView {
  return {
    named: true,
    connections: [
      connection("acme"),
      connection("backup", { port: 2776, password_set: false, bind_mode: "transmitter_receiver", binds: 2, tps: 50 }),
      connection("sandbox", { sandbox: true, password_set: false }),
    ],
    routes: [
      route("fr-otp", ["acme", "backup"], { prefixes: ["+33"], countries: ["FR"], kinds: ["otp"], api_keys: ["website"] }),
      route("rest", ["backup", "acme"]),
    ],
    unrouted: ["sandbox"],
    ...more,
  };
}

function savedAnswer(reconnected: boolean): SettingsSaved {
  return {
    settings: {
      config_file: "/data/smsdesk.toml",
      fields: [],
      password_set: false,
      secret_store: "encrypted_file",
      providers: [],
      presets: [],
    },
    changes: [],
    reconnected,
    generated_secrets: [],
  };
}

/** What the engine lists after a save: the connections and routes sent, passwords kept. */
function viewAfter(update: ConnectionsUpdate): ConnectionsView {
  return {
    named: true,
    connections: update.connections.map((c) => ({ ...c, password: null, password_set: c.password_set || c.password !== null })),
    routes: update.routes,
    unrouted: [],
  };
}

async function choose(select: HTMLSelectElement, value: string): Promise<void> {
  await act(async () => {
    select.value = value;
    select.dispatchEvent(new Event("change", { bubbles: true }));
  });
}

let rendered: Rendered | undefined;
afterEach(async () => {
  await rendered?.unmount();
  rendered = undefined;
});

interface Scene {
  root: HTMLElement;
  backend: FakeBackend;
  readonly updates: ConnectionsUpdate[];
  readonly tests: ConnectionTest[];
}

/** The editor over a backend that keeps what is saved and binds every trial. */
async function open(start: ConnectionsView = view(), reconnected = true): Promise<Scene> {
  const backend = new FakeBackend();
  let current = start;
  const scene: Scene = { root: document.body, backend, updates: [], tests: [] };
  backend.connectionSettings = () => Promise.resolve(current);
  backend.updateConnectionSettings = (update) => {
    scene.updates.push(update);
    current = viewAfter(update);
    return Promise.resolve(savedAnswer(reconnected));
  };
  backend.testConnection = (test) => {
    scene.tests.push(test);
    return Promise.resolve({
      outcome: "bound",
      target: `${test.host ?? "?"}:${test.port ?? "?"}`,
      status: null,
      status_name: null,
      message: "",
      elapsed_ms: 30,
    });
  };
  rendered = await render(<ConnectionsEditor backend={backend} />);
  await settle();
  scene.root = rendered.container;
  return scene;
}

const connectionRows = (root: HTMLElement): HTMLElement[] => [
  ...root.querySelectorAll<HTMLElement>('[data-testid="connection-edit"]'),
];
const routeRows = (root: HTMLElement): HTMLElement[] => [...root.querySelectorAll<HTMLElement>('[data-testid="route-edit"]')];
const names = (rows: HTMLElement[]): (string | undefined)[] => rows.map((r) => r.dataset["name"]);
function nth<T extends HTMLElement>(rows: T[], i: number): T {
  const row = rows[i];
  if (row === undefined) throw new Error(`no row ${i}`);
  return row;
}
const input = (row: HTMLElement, id: string) => byTestId<HTMLInputElement>(row, id);
const kindTicks = (row: HTMLElement): boolean[] =>
  ["otp", "transactional", "bulk"].map((k) => input(row, `route-kind-${k}`).checked);
const saveButton = (root: HTMLElement) => byTestId<HTMLButtonElement>(root, "connections-save");
const problems = (root: ParentNode): string[] =>
  [...root.querySelectorAll('[data-testid="field-problem"]')].map((p) => p.textContent ?? "");
const routeChoices = (row: HTMLElement): string[] =>
  [...row.querySelectorAll<HTMLSelectElement>('[data-testid="route-connection-select"]')].map((s) => s.value);

async function save(scene: Scene): Promise<void> {
  expect(saveButton(scene.root).disabled, "Save is offered").toBe(false);
  await click(saveButton(scene.root));
  await settle();
}

describe("Connections and routes", () => {
  it("lists the connections and routes as saved, in their order, with every field", async () => {
    const { root } = await open();
    expect(byTestId(root, "connections-editor").querySelector("h2")?.textContent).toBe("Connections and routes");
    expect(names(connectionRows(root))).toEqual(["acme", "backup", "sandbox"]);
    expect(names(routeRows(root))).toEqual(["fr-otp", "rest"]);

    const backup = nth(connectionRows(root), 1);
    expect(input(backup, "connection-name").value).toBe("backup");
    expect(input(backup, "connection-host").value).toBe("smpp.backup.example");
    expect(input(backup, "connection-port").value).toBe("2776");
    expect(input(backup, "connection-system-id").value).toBe("office-backup");
    expect(byTestId<HTMLSelectElement>(backup, "connection-bind-mode").value).toBe("transmitter_receiver");
    expect(input(backup, "connection-binds").value).toBe("2");
    expect(input(backup, "connection-window").value).toBe("10");
    expect(input(backup, "connection-tps").value).toBe("50");
    expect(input(backup, "connection-source").value).toBe("ACME");
    expect(input(backup, "connection-enabled").checked).toBe(true);
    expect(input(backup, "connection-sandbox").checked).toBe(false);
    expect(backup.querySelector("legend")?.textContent).toBe("Connection 2: backup");

    const password = input(nth(connectionRows(root), 0), "connection-password");
    expect(password.type).toBe("password");
    expect(password.value, "a saved password is never in the form").toBe("");
    expect(password.placeholder).toContain("Kept");
    expect(input(backup, "connection-password").placeholder, "none kept for backup").toBe("");

    const sandbox = nth(connectionRows(root), 2);
    expect(input(sandbox, "connection-sandbox").checked).toBe(true);
    for (const field of ["connection-host", "connection-port", "connection-system-id", "connection-password", "connection-bind-mode", "connection-tps"]) {
      expect(queryTestId(sandbox, field), `${field} is not used by the sandbox`).toBeNull();
    }
    expect(queryTestId(sandbox, "connection-source"), "the sender id still is").not.toBeNull();

    // Every input has a visible label.
    for (const field of root.querySelectorAll<HTMLInputElement | HTMLSelectElement>("input, select")) {
      const label = field.id === "" ? null : root.querySelector(`label[for="${field.id}"]`);
      expect(label?.textContent?.trim(), `${field.dataset["testid"] ?? field.id} has a label`).toBeTruthy();
    }

    const fr = nth(routeRows(root), 0);
    expect(input(fr, "route-name").value).toBe("fr-otp");
    expect(input(fr, "route-prefixes").value).toBe("+33");
    expect(input(fr, "route-countries").value).toBe("FR");
    expect(input(fr, "route-api-keys").value).toBe("website");
    expect(kindTicks(fr)).toEqual([true, false, false]);
    expect(routeChoices(fr)).toEqual(["acme", "backup"]);
    expect(byTestId(fr, "route-connections").textContent).toContain("Primary");
    expect(byTestId(fr, "route-connections").textContent).toContain("Failover 1");
    expect(routeChoices(nth(routeRows(root), 1))).toEqual(["backup", "acme"]);

    const intro = byTestId(root, "routes-intro").textContent ?? "";
    expect(intro).toContain("the first that matches a message takes it");
    expect(intro).toContain("a message no route takes is refused");
    expect(intro).toContain("With no routes, one route takes every message to the enabled connections");
    expect(queryTestId(root, "connections-migration"), "the connections are named").toBeNull();
    expect(saveButton(root).disabled, "nothing changed").toBe(true);
    expect(problems(root)).toEqual([]);
  });

  it("shows a route naming a connection that was renamed or removed, and blocks Save until it is fixed", async () => {
    const scene = await open();
    const { root } = scene;
    await click(byTestId(root, "route-add"));
    const added = nth(routeRows(root), 2);
    expect(problems(added), "a new route needs a name and a connection").toEqual([
      "Give it a name.",
      "A route needs at least one connection.",
    ]);
    expect(saveButton(root).disabled).toBe(true);
    await type(input(added, "route-name"), "spare");
    await click(byTestId(added, "route-connection-add"));
    expect(routeChoices(added), "the first connection it does not name yet").toEqual(["acme"]);
    await choose(byTestId<HTMLSelectElement>(added, "route-connection-select"), "sandbox");
    expect(problems(root)).toEqual([]);
    expect(saveButton(root).disabled).toBe(false);

    // Renamed: the route still names the old name, and says so.
    await type(input(nth(connectionRows(root), 2), "connection-name"), "sbx");
    const select = byTestId<HTMLSelectElement>(added, "route-connection-select");
    expect(select.value).toBe("sandbox");
    expect(select.selectedOptions[0]?.textContent).toBe("sandbox (not in the list)");
    expect(select.getAttribute("aria-invalid")).toBe("true");
    expect(problems(added)).toEqual(["No connection is named “sandbox”: choose one from the list, or take it off this route."]);
    expect(saveButton(root).disabled).toBe(true);
    expect(byTestId(root, "connections-state").textContent).toBe("Fix the problems marked above to save.");

    // Removed: the same.
    await click(byTestId(nth(connectionRows(root), 2), "connection-remove"));
    expect(names(connectionRows(root))).toEqual(["acme", "backup"]);
    expect(problems(added)).toHaveLength(1);
    expect(saveButton(root).disabled).toBe(true);

    // Fixed by choosing one of the list.
    await choose(byTestId<HTMLSelectElement>(added, "route-connection-select"), "backup");
    expect(problems(root)).toEqual([]);
    await save(scene);
    expect(scene.updates[0]?.routes.map((r) => [r.name, r.connections])).toEqual([
      ["fr-otp", ["acme", "backup"]],
      ["rest", ["backup", "acme"]],
      ["spare", ["backup"]],
    ]);
  });

  it("checks names: required, letters, digits, - and _ only, and each once", async () => {
    const { root } = await open();
    const [acme, backup] = [nth(connectionRows(root), 0), nth(connectionRows(root), 1)];
    await type(input(acme, "connection-name"), "");
    expect(problems(acme)).toEqual(["Give it a name."]);
    await type(input(acme, "connection-name"), "acme eu");
    expect(problems(acme)).toEqual(["1 to 32 letters, digits, - or _, without spaces."]);
    expect(input(acme, "connection-name").getAttribute("aria-invalid")).toBe("true");
    await type(input(acme, "connection-name"), "backup");
    expect(problems(acme)).toEqual(["Another connection has this name."]);
    expect(problems(backup)).toEqual(["Another connection has this name."]);
    expect(saveButton(root).disabled).toBe(true);
    await type(input(acme, "connection-name"), "acme_eu-2");
    expect(problems(acme)).toEqual([]);
    expect(problems(backup)).toEqual([]);
    // The routes naming "acme" now name no connection.
    expect(problems(nth(routeRows(root), 0))).toHaveLength(1);
  });

  it("sends the connections and routes in the order they are listed", async () => {
    const scene = await open();
    const { root } = scene;
    expect(byTestId<HTMLButtonElement>(nth(connectionRows(root), 0), "connection-up").disabled).toBe(true);
    expect(byTestId<HTMLButtonElement>(nth(connectionRows(root), 2), "connection-down").disabled).toBe(true);
    await click(byTestId(nth(connectionRows(root), 0), "connection-down"));
    expect(names(connectionRows(root))).toEqual(["backup", "acme", "sandbox"]);
    await click(byTestId(nth(connectionRows(root), 2), "connection-up"));
    expect(names(connectionRows(root))).toEqual(["backup", "sandbox", "acme"]);

    await click(byTestId(nth(routeRows(root), 1), "route-up"));
    expect(names(routeRows(root))).toEqual(["rest", "fr-otp"]);
    // The failover order within a route.
    await click(byTestId(nth(routeRows(root), 1), "route-connection-down"));
    expect(routeChoices(nth(routeRows(root), 1))).toEqual(["backup", "acme"]);
    await save(scene);

    const update = scene.updates[0];
    expect(update?.connections.map((c) => c.name)).toEqual(["backup", "sandbox", "acme"]);
    expect(update?.routes).toEqual([
      route("rest", ["backup", "acme"]),
      route("fr-otp", ["backup", "acme"], { prefixes: ["+33"], countries: ["FR"], kinds: ["otp"], api_keys: ["website"] }),
    ]);
  });

  it("sends a typed password, and null for one left alone; then reloads and says the connections were bound again", async () => {
    const scene = await open();
    const { root } = scene;
    await type(input(nth(connectionRows(root), 1), "connection-password"), "n3w");
    await save(scene);

    const [acme, backup, sandbox] = scene.updates[0]?.connections ?? [];
    expect(acme, "untouched: sent as loaded, its password kept").toEqual(connection("acme"));
    expect(backup).toMatchObject({ name: "backup", password: "n3w", password_set: false });
    expect(sandbox).toMatchObject({ name: "sandbox", sandbox: true, password: null });

    const notice = byTestId(root, "connections-saved");
    expect(notice.getAttribute("role")).toBe("status");
    expect(notice.textContent).toBe("Connections and routes saved. The connections were bound again with these settings.");
    const password = input(nth(connectionRows(root), 1), "connection-password");
    expect(password.value, "the form was reloaded: no password in it").toBe("");
    expect(password.placeholder, "one is kept now").toContain("Kept");
    expect(saveButton(root).disabled).toBe(true);

    // The next edit puts the notice away.
    await type(input(nth(connectionRows(root), 0), "connection-tps"), "20");
    expect(queryTestId(root, "connections-saved")).toBeNull();
  });

  it("adds a connection with the usual values, and checks a password's length", async () => {
    const scene = await open();
    const { root } = scene;
    await click(byTestId(root, "connection-add"));
    const added = nth(connectionRows(root), 3);
    expect(added.querySelector("legend")?.textContent).toBe("Connection 4 (new)");
    expect(input(added, "connection-port").value).toBe("2775");
    expect(byTestId<HTMLSelectElement>(added, "connection-bind-mode").value).toBe("transceiver");
    expect(problems(added)).toEqual(["Give it a name.", "Type the provider’s host."]);
    await type(input(added, "connection-name"), "third");
    await type(input(added, "connection-host"), "smpp.third.example");
    await type(input(added, "connection-password"), "much-too-long");
    expect(problems(added)).toEqual([
      "Too long: SMPP carries a password of 8 characters at most, so the provider would refuse it. Ask your provider for the password to use over SMPP.",
    ]);
    await type(input(added, "connection-password"), "s3cret");
    await type(input(added, "connection-port"), "99999");
    expect(problems(added)).toEqual(["A port from 1 to 65535."]);
    await type(input(added, "connection-port"), "2777");
    await click(byTestId(nth(routeRows(root), 1), "route-connection-add"));
    await choose(nth([...nth(routeRows(root), 1).querySelectorAll<HTMLSelectElement>("select")], 2), "third");
    await save(scene);
    expect(scene.updates[0]?.connections[3]).toEqual({
      name: "third",
      sandbox: false,
      host: "smpp.third.example",
      port: 2777,
      system_id: "",
      system_type: "",
      bind_mode: "transceiver",
      binds: 1,
      window: 10,
      tps: 10,
      source_addr: "",
      enabled: true,
      password: "s3cret",
      password_set: false,
      ...NO_TLS,
    });
    expect(scene.updates[0]?.routes[1]?.connections).toEqual(["backup", "acme", "third"]);
  });

  it("shows the engine's refusal of a field next to that row, the rest at the top, and keeps what was typed", async () => {
    const scene = await open();
    const { root, backend } = scene;
    backend.updateConnectionSettings = (update) => {
      scene.updates.push(update);
      return Promise.reject(
        new BackendError("invalid", "2 fields are invalid", {
          errors: [
            { field: "connections[1].name", code: "invalid", params: {}, message: "\"backup\" is reserved" },
            { field: "connections", code: "invalid", params: {}, message: "routes[2].prefixes: `+3x` is not a prefix" },
          ],
        }),
      );
    };
    await type(input(nth(connectionRows(root), 1), "connection-host"), "smpp2.backup.example");
    await type(input(nth(routeRows(root), 1), "route-prefixes"), "+44, +353");
    await save(scene);

    const backup = nth(connectionRows(root), 1);
    const nameField = backup.querySelector('[data-field="name"]');
    expect(nameField?.querySelector('[data-testid="field-problem"]')?.textContent).toBe(
      "Not a value this accepts. (\"backup\" is reserved)",
    );
    expect(input(backup, "connection-name").getAttribute("aria-invalid")).toBe("true");
    expect(problems(nth(connectionRows(root), 0)), "not the other rows").toEqual([]);
    const top = byTestId(root, "connections-save-error");
    expect(top.textContent).toContain("The connections and routes were not saved");
    expect(byTestId(top, "connections-save-problems").textContent).toBe(
      "connections: Not a value this accepts. (routes[2].prefixes: `+3x` is not a prefix)",
    );
    expect(top.textContent, "what is shown by its field is not repeated").not.toContain("reserved");
    expect(input(backup, "connection-host").value, "nothing typed is lost").toBe("smpp2.backup.example");
    expect(input(nth(routeRows(root), 1), "route-prefixes").value).toBe("+44, +353");
    expect(scene.updates[0]?.routes[1]?.prefixes).toEqual(["+44", "+353"]);

    // The refusal moves with its row, and goes once the field is changed.
    await click(byTestId(backup, "connection-up"));
    expect(problems(nth(connectionRows(root), 0))).toHaveLength(1);
    await type(input(nth(connectionRows(root), 0), "connection-name"), "backup2");
    expect(problems(root).filter((p) => p.includes("reserved"))).toEqual([]);
  });

  it("says the one [smpp] connection moves into a named one on saving, and keeps its history with its name", async () => {
    const scene = await open({ named: false, connections: [connection("smpp")], routes: [], unrouted: [] });
    const { root } = scene;
    const note = byTestId(root, "connections-migration").textContent ?? "";
    expect(note).toContain("[smpp]");
    expect(note).toContain("[connections.<name>]");
    expect(note).toContain("it keeps its history when you keep its name, smpp");
    expect(byTestId<HTMLButtonElement>(root, "connection-remove").disabled, "the only connection stays").toBe(true);
    expect(byTestId(root, "routes-empty").textContent).toContain("every message goes to the enabled connections");
    expect(queryTestId(root, "connection-unrouted"), "no routes: nothing is unrouted").toBeNull();
    expect(byTestId(root, "connections-state").textContent).toBe("Saving moves the [smpp] section into a named connection.");
    await save(scene);
    expect(scene.updates).toEqual([{ connections: [connection("smpp")], routes: [] }]);
    expect(queryTestId(root, "connections-migration"), "named now").toBeNull();
  });

  it("tests each connection with its values as typed, completed from the one saved under its name", async () => {
    const scene = await open();
    const { root } = scene;
    const backup = nth(connectionRows(root), 1);
    await type(input(backup, "connection-host"), "smpp2.backup.example");
    await click(byTestId(backup, "connection-test"));
    await settle();
    expect(scene.tests).toEqual([
      {
        connection: "backup",
        sandbox: false,
        host: "smpp2.backup.example",
        port: 2776,
        system_id: "office-backup",
        password: null,
        system_type: "",
        interface_version: null,
        address_range: null,
        // TLS as switched in the row (off, as saved): nothing of its checks.
        tls: false,
        tls_server_name: null,
        tls_ca_file: null,
        tls_pin_sha256: null,
      },
    ]);
    const result = byTestId(backup, "connection-test-result");
    expect(result.dataset["outcome"]).toBe("bound");
    expect(result.textContent).toContain("Bound to smpp2.backup.example:2776");
    expect(queryTestId(nth(connectionRows(root), 0), "connection-test-result"), "only in its own row").toBeNull();

    // Renamed and with a password typed: still completed from what it was saved as.
    await type(input(backup, "connection-name"), "backup-eu");
    await type(input(backup, "connection-password"), "pw");
    await click(byTestId(backup, "connection-test"));
    await settle();
    expect(scene.tests[1]).toMatchObject({ connection: "backup", password: "pw" });

    await click(byTestId(nth(connectionRows(root), 2), "connection-test"));
    await settle();
    expect(scene.tests[2]).toMatchObject({ connection: "sandbox", sandbox: true });

    await click(byTestId(root, "connection-add"));
    await click(byTestId(nth(connectionRows(root), 3), "connection-test"));
    await settle();
    expect(scene.tests[3]?.connection, "a new connection has nothing saved").toBeNull();
  });

  it("switches TLS on for a connection with what its certificate is checked with, checked as typed, and saves it", async () => {
    const scene = await open();
    const { root } = scene;
    const acme = nth(connectionRows(root), 0);
    const tls = byTestId(acme, "connection-tls");
    expect(tls.querySelector("legend")?.textContent).toBe("Encryption (TLS)");
    expect(tls.textContent).toContain("Recommended when your provider offers a TLS port");
    expect(tls.textContent, "no word of a file that keeps it").not.toContain("[connections.");
    const on = input(acme, "connection-tls-switch");
    expect(on.checked, "saved without TLS").toBe(false);
    expect(acme.querySelector(`label[for="${on.id}"]`)?.textContent).toBe("Use TLS (an encrypted connection)");
    expect(queryTestId(acme, "connection-tls-details"), "nothing to fill while it is off").toBeNull();
    expect(queryTestId(nth(connectionRows(root), 2), "connection-tls"), "not for the sandbox").toBeNull();

    await click(on);
    expect(tls.dataset["tls"]).toBe("on");
    const details = byTestId(acme, "connection-tls-details");
    expect([...details.querySelectorAll("label")].map((l) => l.textContent)).toEqual([
      "Certificate authorities file (PEM)",
      "Name on the provider’s certificate",
      "Pinned certificate (SHA-256)",
      "Client certificate file (PEM)",
      "Client certificate’s key file (PEM)",
    ]);
    expect(byTestId(root, "connections-state").textContent, "TLS switched on is a change to save").toBe("Unsaved changes.");
    await type(input(acme, "connection-tls-pin-sha256"), "not a pin");
    const pinProblems = problems(acme.querySelector('[data-field="tls_pin_sha256"]') as HTMLElement);
    expect(pinProblems).toEqual(["A SHA-256 is 64 hexadecimal digits (0–9 and A–F), colons allowed, as openssl prints it."]);
    expect(input(acme, "connection-tls-pin-sha256").getAttribute("aria-invalid")).toBe("true");
    expect(saveButton(root).disabled, "a pin that is none blocks the save").toBe(true);
    await type(input(acme, "connection-tls-pin-sha256"), Array(32).fill("AB").join(":"));
    await type(input(acme, "connection-tls-server-name"), " smpp.acme.example ");
    expect(problems(acme)).toEqual([]);
    await save(scene);
    expect(scene.updates[0]?.connections[0]).toEqual(
      connection("acme", {
        tls: true,
        tls_pin_sha256: Array(32).fill("AB").join(":"),
        tls_server_name: "smpp.acme.example",
      }),
    );

    // Reloaded as the engine reads it back: still on, with its pin.
    const reloaded = nth(connectionRows(root), 0);
    expect(input(reloaded, "connection-tls-switch").checked).toBe(true);
    expect(input(reloaded, "connection-tls-server-name").value).toBe("smpp.acme.example");
    expect(saveButton(root).disabled, "nothing changed since").toBe(true);
  });

  it("loads a connection saved with TLS, says what turning it off means, and saves none of its keys then", async () => {
    const saved = connection("acme", { tls: true, tls_pin_sha256: PIN, tls_ca_file: "/etc/smsdesk/acme-ca.pem" });
    const scene = await open(view({ connections: [saved, connection("backup")], routes: [], unrouted: [] }));
    const { root } = scene;
    const acme = nth(connectionRows(root), 0);
    expect(input(acme, "connection-tls-switch").checked).toBe(true);
    expect(input(acme, "connection-tls-pin-sha256").value).toBe(PIN);
    expect(input(acme, "connection-tls-ca-file").value).toBe("/etc/smsdesk/acme-ca.pem");
    expect(queryTestId(acme, "connection-tls-clear")).toBeNull();
    expect(queryTestId(nth(connectionRows(root), 1), "connection-tls-clear"), "never saved with TLS").toBeNull();

    await click(input(acme, "connection-tls-switch"));
    expect(byTestId(acme, "connection-tls-clear").textContent).toContain("the password and the messages would travel in clear");
    expect(queryTestId(acme, "connection-tls-details")).toBeNull();
    // Back on: what was typed is still there; off again, and saved.
    await click(input(acme, "connection-tls-switch"));
    expect(input(acme, "connection-tls-pin-sha256").value).toBe(PIN);
    expect(saveButton(root).disabled, "as saved again").toBe(true);
    await click(input(acme, "connection-tls-switch"));
    await save(scene);
    expect(scene.updates[0]?.connections[0], "off: no TLS key is sent to be written").toEqual(connection("acme"));
  });

  it("asks for a client certificate's two files, and says a test uses the saved ones", async () => {
    const scene = await open();
    const { root } = scene;
    const acme = nth(connectionRows(root), 0);
    await click(input(acme, "connection-tls-switch"));
    expect(queryTestId(acme, "connection-tls-client-untested")).toBeNull();
    await type(input(acme, "connection-tls-client-cert-file"), "/etc/smsdesk/office.pem");
    const keyField = acme.querySelector('[data-field="tls_client_key_file"]') as HTMLElement;
    expect(problems(keyField)).toEqual(["A client certificate needs both files: the certificate’s and its key’s (or neither)."]);
    expect(saveButton(root).disabled).toBe(true);
    expect(byTestId(acme, "connection-tls-client-untested").textContent).toBe(
      "The test uses the client certificate and key as saved: the ones typed here are used once they are saved.",
    );
    await type(input(acme, "connection-tls-client-key-file"), "/etc/smsdesk/office.key");
    expect(problems(acme)).toEqual([]);
    await save(scene);
    expect(scene.updates[0]?.connections[0]).toMatchObject({
      tls: true,
      tls_client_cert_file: "/etc/smsdesk/office.pem",
      tls_client_key_file: "/etc/smsdesk/office.key",
    });
    expect(queryTestId(nth(connectionRows(root), 0), "connection-tls-client-untested"), "saved: the test uses them").toBeNull();
  });

  it("shows the engine's refusal of a pin or of a client certificate beside its field, until it is changed", async () => {
    const scene = await open();
    const { root, backend } = scene;
    backend.updateConnectionSettings = (update) => {
      scene.updates.push(update);
      return Promise.reject(
        new BackendError("invalid", "2 fields are invalid", {
          errors: [
            { field: "connections[1].tls_pin_sha256", code: "invalid", params: {}, message: "not 32 bytes" },
            {
              field: "connections[1].tls_client_key_file",
              code: "invalid",
              params: {},
              message: "a client certificate needs both its file and its key's",
            },
          ],
        }),
      );
    };
    const backup = nth(connectionRows(root), 1);
    await click(input(backup, "connection-tls-switch"));
    await type(input(backup, "connection-tls-pin-sha256"), PIN);
    await save(scene);
    expect(scene.updates[0]?.connections[1]).toMatchObject({ tls: true, tls_pin_sha256: PIN });

    const beside = (field: string): string[] => problems(backup.querySelector(`[data-field="${field}"]`) as HTMLElement);
    expect(beside("tls_pin_sha256")).toEqual(["Not a value this accepts. (not 32 bytes)"]);
    expect(beside("tls_client_key_file")).toEqual([
      "Not a value this accepts. (a client certificate needs both its file and its key's)",
    ]);
    expect(input(backup, "connection-tls-pin-sha256").getAttribute("aria-invalid")).toBe("true");
    expect(queryTestId(byTestId(root, "connections-save-error"), "connections-save-problems"), "none left for the top").toBeNull();
    expect(backup.querySelector(':scope > div[id$="-other"]'), "nor at the top of the row").toBeNull();

    await type(input(backup, "connection-tls-pin-sha256"), "");
    expect(beside("tls_pin_sha256")).toEqual([]);
    await type(input(backup, "connection-tls-client-cert-file"), "/etc/smsdesk/office.pem");
    expect(beside("tls_client_key_file"), "the pair's refusal goes with either file changed; what is typed is checked").toEqual([
      "A client certificate needs both files: the certificate’s and its key’s (or neither).",
    ]);
  });

  it("tests a row over TLS as switched there, with the certificate's checks typed", async () => {
    const scene = await open();
    const { root } = scene;
    const acme = nth(connectionRows(root), 0);
    await click(input(acme, "connection-tls-switch"));
    await type(input(acme, "connection-tls-pin-sha256"), PIN);
    await type(input(acme, "connection-tls-server-name"), "smpp.acme.example");
    await click(byTestId(acme, "connection-test"));
    await settle();
    expect(scene.tests[0]).toMatchObject({
      connection: "acme",
      tls: true,
      tls_pin_sha256: PIN,
      tls_server_name: "smpp.acme.example",
      tls_ca_file: "",
    });

    await click(input(acme, "connection-tls-switch"));
    await click(byTestId(acme, "connection-test"));
    await settle();
    expect(scene.tests[1]).toMatchObject({ tls: false, tls_pin_sha256: null, tls_server_name: null, tls_ca_file: null });

    await click(byTestId(nth(connectionRows(root), 2), "connection-test"));
    await settle();
    expect(scene.tests[2], "the sandbox has no link to encrypt").toMatchObject({ sandbox: true, tls: null });
  });

  it("shows next to a row's password the one its test asks for, and a certificate problem as such", async () => {
    const scene = await open(view({ connections: [connection("acme", { tls: true }), connection("backup")], routes: [], unrouted: [] }));
    const { root } = scene;
    scene.backend.testConnection = (test) =>
      test.tls === false
        ? Promise.reject(
            new BackendError("invalid", "1 field is invalid: smpp.password", {
              errors: [{ field: "smpp.password", code: "required", params: {}, message: "… as office-acme, over TLS" }],
            }),
          )
        : Promise.resolve({
            outcome: "tls",
            target: "smpp.acme.example:2775",
            status: null,
            status_name: null,
            message: "TLS: the server's certificate expired on 2026-11-30",
            elapsed_ms: 9,
          });
    const acme = nth(connectionRows(root), 0);
    await click(byTestId(acme, "connection-test"));
    await settle();
    expect(byTestId(acme, "connection-test-result-headline").textContent).toBe("Certificate problem — nothing was sent");
    expect(byTestId(acme, "connection-test-result-tls").textContent).toContain("expired on 2026-11-30");

    await click(input(acme, "connection-tls-switch"));
    await click(byTestId(acme, "connection-test"));
    await settle();
    const beside = acme.querySelector('[data-field="password"] [data-testid="field-problem"]');
    expect(beside?.textContent).toContain("Type the password for this server");
    expect(input(acme, "connection-password").getAttribute("aria-invalid")).toBe("true");
    expect(byTestId(acme, "connection-test-error").dataset["code"]).toBe("invalid");
    await type(input(acme, "connection-password"), "pw");
    expect(acme.querySelector('[data-field="password"] [data-testid="field-problem"]'), "gone once one is typed").toBeNull();
  });

  it("warns of a connection no route names: it binds and sends nothing", async () => {
    const { root } = await open();
    const warnings = (): (string | undefined)[] =>
      connectionRows(root)
        .filter((row) => queryTestId(row, "connection-unrouted") !== null)
        .map((row) => row.dataset["name"]);
    expect(warnings()).toEqual(["sandbox"]);
    expect(byTestId(root, "connection-unrouted").textContent).toBe(
      "No route names this connection: it binds and sends nothing.",
    );
    expect(saveButton(root).disabled, "a warning does not block").toBe(true);
    await type(input(nth(connectionRows(root), 1), "connection-tps"), "60");
    expect(saveButton(root).disabled, "a warning does not block saving").toBe(false);

    // Taken off every route, backup is unrouted too.
    for (const row of routeRows(root)) {
      const entry = [...row.querySelectorAll<HTMLElement>('[data-testid="route-connection"]')].find(
        (e) => e.dataset["name"] === "backup",
      );
      if (entry !== undefined) await click(byTestId(entry, "route-connection-remove"));
    }
    expect(warnings()).toEqual(["backup", "sandbox"]);
    // A disabled connection binds nothing: no warning.
    await click(input(nth(connectionRows(root), 2), "connection-enabled"));
    expect(warnings()).toEqual(["backup"]);
    // Without routes, every message goes to the enabled connections: none is unrouted.
    await click(byTestId(nth(routeRows(root), 0), "route-remove"));
    await click(byTestId(nth(routeRows(root), 0), "route-remove"));
    expect(routeRows(root)).toEqual([]);
    expect(warnings()).toEqual([]);
  });

  it("says when a route without conditions hides those after it, and when the last one has conditions", async () => {
    const { root } = await open();
    expect(queryTestId(root, "route-shadows")).toBeNull();
    expect(queryTestId(root, "routes-no-fallback")).toBeNull();
    await click(byTestId(nth(routeRows(root), 1), "route-up"));
    expect(queryTestId(nth(routeRows(root), 0), "route-shadows")).not.toBeNull();
    expect(byTestId(root, "routes-no-fallback").textContent).toBe("The last route has conditions: a message no route takes is refused.");
    expect(saveButton(root).disabled, "warnings do not block").toBe(false);
  });

  it("checks prefixes and countries, and sends the kinds ticked", async () => {
    const scene = await open();
    const { root } = scene;
    const rest = nth(routeRows(root), 1);
    await type(input(rest, "route-prefixes"), "+44, 0033,");
    await type(input(rest, "route-countries"), "gb, France");
    expect(problems(rest)).toEqual([
      "“0033” is not a prefix in international form, such as +33 or +3361.",
      "“France” is not a two-letter country code, such as FR.",
    ]);
    expect(saveButton(root).disabled).toBe(true);
    await type(input(rest, "route-prefixes"), "+44, +353,");
    await type(input(rest, "route-countries"), "gb, ie");
    await click(input(rest, "route-kind-bulk"));
    await click(input(rest, "route-kind-transactional"));
    await type(input(rest, "route-api-keys"), " crm ,, shop ");
    await save(scene);
    expect(scene.updates[0]?.routes[1]).toEqual(
      route("rest", ["backup", "acme"], {
        prefixes: ["+44", "+353"],
        countries: ["GB", "IE"],
        kinds: ["transactional", "bulk"],
        api_keys: ["crm", "shop"],
      }),
    );
  });

  it("says when the connections could not be loaded, and retries", async () => {
    const backend = new FakeBackend();
    let calls = 0;
    backend.connectionSettings = () => {
      calls += 1;
      return calls === 1 ? Promise.reject(new BackendError("forbidden", "needs the admin role")) : Promise.resolve(view());
    };
    rendered = await render(<ConnectionsEditor backend={backend} />);
    await settle();
    const root = rendered.container;
    expect(byTestId(root, "connections-error").dataset["code"]).toBe("forbidden");
    await click(byTestId(root, "retry"));
    await settle();
    expect(names(connectionRows(root))).toEqual(["acme", "backup", "sandbox"]);
  });

  it("speaks French and Russian", async () => {
    for (const [lang, title, unrouted] of [
      ["fr-FR", "Connexions et routes", "Aucune route ne nomme cette connexion : elle se relie et n’envoie rien."],
      ["ru-RU", "Подключения и маршруты", "Ни один маршрут не указывает это подключение: оно подключается, но ничего не отправляет."],
    ] as const) {
      const backend = new FakeBackend();
      backend.connectionSettings = () => Promise.resolve(view());
      rendered = await render(<ConnectionsEditor backend={backend} />, [lang]);
      await settle();
      expect(rendered.container.querySelector("h2")?.textContent).toBe(title);
      expect(byTestId(rendered.container, "connection-unrouted").textContent).toBe(unrouted);
      await rendered.unmount();
      rendered = undefined;
    }
  });
});

describe("in the Settings screen", () => {
  it("comes after the settings form, once the settings loaded, and saves on its own", async () => {
    const backend = new FakeBackend();
    backend.settings = () => Promise.resolve(savedAnswer(false).settings);
    backend.connectionSettings = () => Promise.resolve(view());
    rendered = await render(<Settings backend={backend} />);
    await settle();
    const root = rendered.container;
    const form = byTestId(root, "settings-form");
    const editor = byTestId(root, "connections-editor");
    expect(form.compareDocumentPosition(editor) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(form.contains(editor), "not inside the settings form").toBe(false);
    expect(names(connectionRows(root))).toEqual(["acme", "backup", "sandbox"]);
    await rendered.unmount();

    const refused = new FakeBackend();
    refused.settings = () => Promise.reject(new BackendError("forbidden", "needs the admin role"));
    refused.connectionSettings = () => Promise.resolve(view());
    rendered = await render(<Settings backend={refused} />);
    await settle();
    expect(queryTestId(rendered.container, "connections-editor"), "not without the settings").toBeNull();
  });
});

describe("splitList", () => {
  it("splits on commas, trims and drops empties", () => {
    expect(splitList(" +33, +3361 ,, ")).toEqual(["+33", "+3361"]);
    expect(splitList("")).toEqual([]);
  });
});
