// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import type { ConnectionTestResult } from "../../bindings/ConnectionTestResult";
import { byTestId, queryTestId, render, type Rendered } from "../../test/dom";
import { TestResult } from "./ConnectionTest";

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
