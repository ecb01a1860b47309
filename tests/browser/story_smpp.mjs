// smsdesk's own SMPP server and TLS to a provider, by an admin, on an instance whose smsdesk.toml
// turns the SMPP server on (on a port the system picks) and names two connections: the sandbox,
// which sends, and a provider's, not enabled yet. An SMPP account for the office's PBX is made on
// the API keys screen, its password shown once; the dashboard's SMPP server card says where it
// listens and that no client is bound, then lists the PBX once it binds (a bind_transceiver sent
// from here over TCP with the password read from the screen); in Settings, the provider's
// connection is switched to TLS with its certificate pinned, saved, and still so after a reload.
//
// Besides the verbs of story.mjs, the adapter may give `reload()` (the page loaded again).

import assert from "node:assert/strict";
import net from "node:net";

import { eventually, openSection, tid } from "./story.mjs";

/** The instance's configuration: the SMPP server on, and a provider's connection beside the sandbox. */
export const SMPP_CONFIG = `[smpp_server]
enabled = true
port = 0

[connections.sandbox]
sandbox = true

[connections.acme]
host = "smpp.acme.example"
port = 3550
system_id = "office"
enabled = false
`;

/** The PBX's account: what it binds with. */
export const PBX = "pbx";

/** The pin the story sets, as openssl prints a certificate's SHA-256 ("AB:CD:…"). */
const PIN = Array.from({ length: 32 }, (_, i) => ((i * 37 + 11) % 256).toString(16).padStart(2, "0").toUpperCase()).join(":");

/**
 * The API keys screen: an SMPP account `pbx` made with the form's defaults; its password shown
 * once (8 characters, with the warning), the account listed, and its key marked in the keys'
 * list. Returns the password as read from the screen.
 */
export async function createSmppAccount(ui) {
  await openSection(ui, "keys");
  await ui.waitFor(tid("smpp-accounts-empty"), 15_000);
  await ui.fill(tid("smpp-account-name"), PBX);
  await ui.click(tid("smpp-account-submit"));
  await ui.waitFor(tid("smpp-password", `[data-name="${PBX}"]`), 15_000);
  const password = (await ui.text(tid("smpp-password-value"))).trim();
  assert.match(password, /^\S{8}$/, `the password is 8 characters, SMPP's limit: ${JSON.stringify(password)}`);
  assert.match(await ui.text(tid("smpp-password-warning")), /cannot be shown again/);
  const row = tid("smpp-account-row", `[data-name="${PBX}"]`);
  await ui.waitFor(row, 15_000);
  assert.equal(await ui.count(tid("smpp-account-row")), 1, "one SMPP account listed");
  assert.equal(await ui.attr(`${row} ${tid("smpp-account-kinds")}`, "data-kinds"), "transactional", "the form's default kind");
  assert.match(await ui.text(`${row} ${tid("smpp-account-state")}`), /Active/);
  await eventually("its key marked in the keys' list", async () => /SMPP account/.test(await ui.text(tid("keys-table"))));
  await ui.accessible?.("the API keys screen with an SMPP account and its password");
  // The screen without the form for an HTTP key between its two lists: the keys (pbx's marked), the SMPP accounts, the password.
  await ui.screenshot("smpp-accounts.png", { style: { [`.panel:has(${tid("create-key-form")})`]: { display: "none" } } });

  // Shown once: the screen opened again holds the account, not its password.
  await openSection(ui, "dashboard");
  await openSection(ui, "keys");
  await ui.waitFor(row, 15_000);
  assert.equal(await ui.count(tid("smpp-password")), 0, "the password is not shown again");
  return password;
}

/** A bind_transceiver PDU (SMPP 3.4), sequence 1. */
function bindTransceiver(systemId, password) {
  const body = Buffer.concat([
    Buffer.from(`${systemId}\0${password}\0\0`, "latin1"), // system_id, password, system_type
    Buffer.from([0x34, 0, 0]), // interface_version 3.4, addr_ton, addr_npi
    Buffer.from("\0", "latin1"), // address_range
  ]);
  const header = Buffer.alloc(16);
  header.writeUInt32BE(16 + body.length, 0);
  header.writeUInt32BE(0x00000009, 4);
  header.writeUInt32BE(0, 8);
  header.writeUInt32BE(1, 12);
  return Buffer.concat([header, body]);
}

/** An SMPP PDU with only its header: unbind, enquire_link's answer. */
function headerOnly(commandId, sequence) {
  const pdu = Buffer.alloc(16);
  pdu.writeUInt32BE(16, 0);
  pdu.writeUInt32BE(commandId >>> 0, 4);
  pdu.writeUInt32BE(0, 8);
  pdu.writeUInt32BE(sequence, 12);
  return pdu;
}

/**
 * Binds as a transceiver to `host:port` over TCP, as the office's PBX would; resolves once the
 * server answers the bind with status 0 (rejects with the status otherwise). The client answers
 * enquire_link while it is bound; `unbind()` ends the session.
 */
export function bindAsPbx(host, port, systemId, password) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    let buffered = Buffer.alloc(0);
    let bound = false;
    const fail = (error) => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(15_000, () => fail(new Error("no answer to the bind within 15 s")));
    socket.once("error", fail);
    socket.once("connect", () => socket.write(bindTransceiver(systemId, password)));
    socket.on("data", (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 16 && buffered.length >= buffered.readUInt32BE(0)) {
        const length = buffered.readUInt32BE(0);
        const [id, status, sequence] = [buffered.readUInt32BE(4), buffered.readUInt32BE(8), buffered.readUInt32BE(12)];
        buffered = buffered.subarray(length);
        if (id === 0x80000009 && !bound) {
          if (status !== 0) return fail(new Error(`the bind was refused: command_status 0x${status.toString(16).padStart(8, "0")}`));
          bound = true;
          socket.setTimeout(0);
          resolve({
            unbind: () =>
              new Promise((done) => {
                socket.once("close", done);
                socket.end(headerOnly(0x00000006, 2));
                setTimeout(() => socket.destroy(), 5_000).unref();
              }),
          });
        } else if (id === 0x00000015) {
          socket.write(headerOnly(0x80000015, sequence));
        }
      }
    });
  });
}

/**
 * The dashboard's SMPP server card: listening (without TLS), no client bound; then the PBX binds
 * with the password read from the screen, and the card lists its session (account pbx, bind
 * transceiver). After the screenshot, the PBX unbinds and the card says no client is bound again.
 */
export async function smppServerCard(ui, password) {
  await openSection(ui, "dashboard");
  const card = tid("dashboard-smpp-server");
  await ui.waitFor(tid("smpp-server-listening"), 30_000);
  const listening = await ui.text(tid("smpp-server-listening"));
  const address = /Listening on (\d+\.\d+\.\d+\.\d+):(\d+)/.exec(listening);
  assert.ok(address, `the card says where it listens: ${listening}`);
  assert.notEqual(address[2], "0", "the port the system gave, not 0");
  assert.equal(await ui.attr(tid("smpp-server-listening"), "data-tls"), "false");
  assert.match(listening, /Without TLS/);
  assert.equal(await ui.text(tid("smpp-server-none")), "No client bound.");
  assert.equal(await ui.count(tid("smpp-server-problem")), 0, "nothing stops it listening");

  const pbx = await bindAsPbx(address[1], Number(address[2]), PBX, password);
  try {
    const session = tid("smpp-server-session", `[data-account="${PBX}"]`);
    // The card is asked again every 5 s, and at once on a change.
    await eventually("the PBX's session on the card", async () => (await ui.count(session)) > 0, 20_000);
    const cells = await ui.text(session);
    assert.match(cells, /^pbxTransceiver127\.0\.0\.1:\d+No/, `account, bind, address, without TLS: ${cells}`);
    assert.equal(await ui.count(tid("smpp-server-none")), 0);
    await ui.accessible?.("the dashboard with the SMPP server's card");
    await ui.screenshot("smpp-server-card.png", { element: card });
  } finally {
    await pbx.unbind();
  }
  await eventually("no client bound once the PBX unbound", async () => (await ui.count(tid("smpp-server-none"))) > 0, 20_000);
}

const acmeRow = `${tid("connection-edit")}[data-name="acme"]`;

/**
 * Settings, Connections and routes: the provider's connection switched to TLS, its certificate's
 * SHA-256 pinned as openssl prints it; saved, and after a reload still on, with the pin as the
 * engine keeps it (its hex digits).
 */
export async function connectionOverTls(ui) {
  await openSection(ui, "settings");
  await ui.waitFor(acmeRow, 30_000);
  const on = `${acmeRow} ${tid("connection-tls-switch")}`;
  assert.equal(await ui.count(`${on}:checked`), 0, "saved without TLS");
  assert.equal(await ui.count(`${acmeRow} ${tid("connection-tls-details")}`), 0);
  await ui.click(on);
  await ui.waitFor(`${acmeRow} ${tid("connection-tls-details")}`);
  await ui.fill(`${acmeRow} ${tid("connection-port")}`, "3551");
  await ui.fill(`${acmeRow} ${tid("connection-tls-pin-sha256")}`, PIN.slice(0, 20));
  await eventually("a pin cut short said as typed", async () => (await ui.count(`${acmeRow} [data-field="tls_pin_sha256"] ${tid("field-problem")}`)) > 0);
  assert.notEqual(await ui.attr(tid("connections-save"), "disabled"), null, "no save with a pin that is none");
  await ui.fill(`${acmeRow} ${tid("connection-tls-pin-sha256")}`, PIN);
  await ui.fill(`${acmeRow} ${tid("connection-tls-server-name")}`, "smpp.acme.example");
  await eventually("the pin accepted", async () => (await ui.count(`${acmeRow} ${tid("field-problem")}`)) === 0);
  await ui.click(tid("connections-save"));
  await ui.waitFor(tid("connections-saved"), 60_000);

  if (ui.reload) await ui.reload();
  else await openSection(ui, "dashboard");
  await openSection(ui, "settings");
  await ui.waitFor(acmeRow, 30_000);
  await ui.waitFor(`${acmeRow} ${tid("connection-tls-details")}`, 15_000);
  assert.equal(await ui.count(`${on}:checked`), 1, "still over TLS once loaded again");
  assert.equal(await ui.attr(`${acmeRow} ${tid("connection-tls-pin-sha256")}`, "value"), PIN.replaceAll(":", "").toLowerCase());
  assert.equal(await ui.attr(`${acmeRow} ${tid("connection-tls-server-name")}`, "value"), "smpp.acme.example");
  assert.equal(await ui.attr(`${acmeRow} ${tid("connection-port")}`, "value"), "3551");
  assert.match(await ui.text(tid("connections-state")), /No changes/);
  await ui.accessible?.("the connections editor with a connection over TLS");
  // The save bar sticks to the window's bottom: let go of while the row is pictured, so that it hides none of it.
  await ui.screenshot("connection-tls.png", { element: acmeRow, style: { ".settings-save-bar": { position: "static" } } });
}
