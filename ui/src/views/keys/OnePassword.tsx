import { useState } from "react";
import type { CreatedSmppAccount } from "../../bindings/CreatedSmppAccount";
import { useI18n } from "../../i18n/context";

/** A password shown once: an SMPP account's, just made or given anew. */
export interface Revealed {
  readonly from: "create" | "reset";
  readonly account: CreatedSmppAccount;
}

/** The password, shown this once, with a way to copy it and the warning that it cannot be shown again. */
export function OnePassword({ revealed }: { revealed: Revealed }) {
  const { t } = useI18n();
  const { info, password } = revealed.account;
  return (
    <div className="notice notice-success" data-testid="smpp-password" data-from={revealed.from} data-name={info.name}>
      <h3>
        {revealed.from === "create"
          ? t("smppAccounts.created.title", { name: info.name })
          : t("smppAccounts.newPassword.title", { name: info.name })}
      </h3>
      <p>{t("smppAccounts.password.body", { name: info.name })}</p>
      <pre className="command secret">
        <code data-testid="smpp-password-value">{password}</code>
      </pre>
      <CopyButton text={password} />
      <p className="smpp-password-warning" data-testid="smpp-password-warning">
        <strong>{t("smppAccounts.password.once")}</strong>
      </p>
    </div>
  );
}

/** Copies `text` to the clipboard, and says whether it did (where there is no clipboard, to copy it by hand). */
function CopyButton({ text }: { text: string }) {
  const { t } = useI18n();
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const copy = (): void => {
    const clipboard = typeof navigator === "undefined" ? undefined : navigator.clipboard;
    if (clipboard === undefined) {
      setState("failed");
      return;
    }
    clipboard.writeText(text).then(
      () => setState("copied"),
      () => setState("failed"),
    );
  };
  return (
    <p className="row-actions">
      <button type="button" className="button button-secondary button-small" onClick={copy} data-testid="smpp-password-copy">
        {t("smppAccounts.copy")}
      </button>
      <span role="status" data-testid="smpp-password-copied" data-state={state}>
        {state === "copied" ? t("smppAccounts.copied") : state === "failed" ? t("smppAccounts.copyFailed") : ""}
      </span>
    </p>
  );
}

