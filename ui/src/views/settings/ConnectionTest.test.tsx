// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import type { ConnectionTestResult } from "../../bindings/ConnectionTestResult";
import { byTestId, queryTestId, render, type Rendered } from "../../test/dom";
import { TestResult, trialOf } from "./ConnectionTest";
import { pinDigits } from "./tls";

let rendered: Rendered | undefined;
afterEach(async () => {
  await rendered?.unmount();
  rendered = undefined;
});

function refused(status: number, status_name: string | null): ConnectionTestResult {
  return {
    outcome: "refused",
    target: "smpp.example:2775",
    status,
    status_name,
    message: `the SMSC refused the bind: ${status_name ?? status} (invalid password)`,
    elapsed_ms: 12,
  };
}

async function show(result: ConnectionTestResult, languages = ["en-US"]): Promise<HTMLElement> {
  rendered = await render(<TestResult result={result} />, languages);
  return rendered.container;
}

describe("a connection test's answer", () => {
  it("leads a refused password with what to do, the provider's code in small print", async () => {
    const root = await show(refused(0x0e, "ESME_RINVPASWD"));
    const headline = byTestId(root, "test-result-headline").textContent ?? "";
    expect(headline).toBe("The provider refused the user name or password: check them with your provider");
    expect(headline, "no code in the headline").not.toContain("ESME");
    const code = byTestId(root, "test-result-code");
    expect(code.textContent).toBe("The provider’s answer: ESME_RINVPASWD");
    expect(code.classList.contains("hint"), "small print").toBe(true);
    expect(root.textContent, "the engine's English sentence is not shown for a refusal").not.toContain("the SMSC refused");
    expect(queryTestId(root, "test-result-check"), "said once: the headline says what to check").toBeNull();
  });

  it("says it in French and in Russian", async () => {
    const fr = await show(refused(0x0e, "ESME_RINVPASWD"), ["fr-FR"]);
    expect(byTestId(fr, "test-result-headline").textContent).toBe(
      "Le fournisseur a refusé l’identifiant ou le mot de passe : vérifiez-les auprès de votre fournisseur",
    );
    await rendered?.unmount();
    const ru = await show(refused(0x0f, "ESME_RINVSYSID"), ["ru-RU"]);
    expect(byTestId(ru, "test-result-headline").textContent).toBe("Провайдер не знает этот System ID: уточните его у провайдера");
    expect(byTestId(ru, "test-result-code").textContent).toBe("Ответ провайдера: ESME_RINVSYSID");
  });

  it("words a refusal it has no sentence for as one of the account, the code given as a number when unnamed", async () => {
    const root = await show(refused(0x400, null));
    expect(byTestId(root, "test-result-headline").textContent).toContain(
      "The provider did not accept this account: check the System ID, the password and the system type",
    );
    expect(byTestId(root, "test-result-code").textContent).toBe("The provider’s answer: 0x00000400");
  });

  it("keeps what to check for a server that did not answer, and the system's words marked as such", async () => {
    const root = await show({
      outcome: "unreachable",
      target: "smpp.example:2775",
      status: null,
      status_name: null,
      message: "connection refused (os error 111)",
      elapsed_ms: 3,
    });
    expect(byTestId(root, "test-result-headline").textContent).toBe("Could not connect to smpp.example:2775.");
    expect(byTestId(root, "test-result-check").textContent).toContain("check the host and the port");
    const details = byTestId(root, "test-result-details");
    expect(details.querySelector('[lang="en"]')?.textContent).toBe("connection refused (os error 111)");
    expect(queryTestId(root, "test-result-code")).toBeNull();
  });
});

describe("a connection test over TLS", () => {
  const tls = (message: string): ConnectionTestResult => ({
    outcome: "tls",
    target: "10.0.0.5:3550",
    status: null,
    status_name: null,
    message,
    elapsed_ms: 25,
  });

  it("says a certificate problem stopped it before anything was sent, and names the problem in full", async () => {
    const message = "TLS: the server's certificate is for smpp.example.net, not 10.0.0.5";
    const root = await show(tls(message));
    const result = byTestId(root, "test-result");
    expect(result.dataset["outcome"]).toBe("tls");
    expect(result.classList.contains("notice-error"), "shown as an error").toBe(true);
    expect(byTestId(root, "test-result-headline").textContent).toBe("Certificate problem — nothing was sent");
    const problem = byTestId(root, "test-result-tls");
    expect(problem.textContent).toBe(`What was wrong: ${message}`);
    expect(problem.querySelector('[lang="en"]')?.textContent, "the engine's words, marked as English").toBe(message);
    expect(problem.classList.contains("hint"), "not small print").toBe(false);
    expect(byTestId(root, "test-result-check").textContent).toContain("not even the password");
    expect(queryTestId(root, "test-result-details"), "said once").toBeNull();
    expect(queryTestId(root, "test-result-code")).toBeNull();
  });

  it("keeps a long problem whole (an expired certificate, a pin that does not match)", async () => {
    const pin = "TLS: the server's certificate is not the pinned one: its SHA-256 is " + "ab:".repeat(31) + "ab";
    const root = await show(tls(pin));
    expect(byTestId(root, "test-result-tls").textContent).toContain(pin);
  });

  it("says it in French and in Russian", async () => {
    const fr = await show(tls("TLS: the server's certificate expired on 2026-11-30"), ["fr-FR"]);
    expect(byTestId(fr, "test-result-headline").textContent).toBe("Problème de certificat — rien n’a été envoyé");
    await rendered?.unmount();
    const ru = await show(tls("TLS: the server's certificate expired on 2026-11-30"), ["ru-RU"]);
    expect(byTestId(ru, "test-result-headline").textContent).toBe("Проблема с сертификатом — ничего не отправлено");
    expect(byTestId(ru, "test-result-tls").textContent).toContain("expired on 2026-11-30");
  });
});

describe("what a test sends of TLS", () => {
  const values = (v: Record<string, string>) => (key: string) => v[key] ?? "";

  it("leaves TLS as saved when the engine has no TLS setting", () => {
    expect(trialOf(values({ "smpp.host": "smpp.example" }), null, false)).toMatchObject({
      tls: null,
      tls_server_name: null,
      tls_ca_file: null,
      tls_pin_sha256: null,
    });
  });

  it("sends the certificate's checks as typed while TLS is on, and none while it is off", () => {
    const on = values({
      "smpp.tls": "true",
      "smpp.tls_server_name": " smpp.example.net ",
      "smpp.tls_ca_file": "/etc/smsdesk/provider-ca.pem",
      "smpp.tls_pin_sha256": "",
    });
    expect(trialOf(on, "pw", false)).toMatchObject({
      tls: true,
      tls_server_name: "smpp.example.net",
      tls_ca_file: "/etc/smsdesk/provider-ca.pem",
      tls_pin_sha256: "",
      password: "pw",
    });
    const off = values({ "smpp.tls": "false", "smpp.tls_server_name": "smpp.example.net" });
    expect(trialOf(off, null, false)).toMatchObject({ tls: false, tls_server_name: null, tls_ca_file: null, tls_pin_sha256: null });
  });
});

describe("a certificate's pin as typed", () => {
  it("is 64 hex digits, with or without colons, as openssl prints it", () => {
    const plain = "AB".repeat(32);
    expect(pinDigits(plain)).toBe("ab".repeat(32));
    expect(pinDigits(Array(32).fill("AB").join(":"))).toBe("ab".repeat(32));
    expect(pinDigits("  ")).toBe("");
    expect(pinDigits("ab:cd")).toBeNull();
    expect(pinDigits("zz".repeat(32))).toBeNull();
    expect(pinDigits("ab".repeat(33))).toBeNull();
  });
});
