import type { ReactNode } from "react";
import type { SettingField } from "../../bindings/SettingField";
import { useI18n } from "../../i18n/context";
import { CLIENT_CERTIFICATE, TLS_DETAILS, TLS_SWITCH } from "./tls";

/** Whether the TLS settings on screen must wait for a save before a test can use them: a client certificate typed. */
export function clientCertificateUntested(fields: ReadonlyMap<string, SettingField>, valueOf: (key: string) => string): boolean {
  return (
    valueOf(TLS_SWITCH) === "true" && CLIENT_CERTIFICATE.some((key) => valueOf(key) !== (fields.get(key)?.value ?? ""))
  );
}

/**
 * TLS to the provider, as the settings' own fields (`control` draws each, as the rest of the
 * form does, with its name, what it means and the engine's refusal): the switch, and while it is
 * on, what the certificate is checked with. Turning off TLS saved on says what that means.
 * Nothing when the engine has no TLS setting.
 */
export function TlsFields({
  fields,
  valueOf,
  control,
  testId = "tls-fields",
}: {
  fields: ReadonlyMap<string, SettingField>;
  valueOf: (key: string) => string;
  control: (key: string) => ReactNode;
  testId?: string;
}) {
  const saved = fields.get(TLS_SWITCH);
  if (saved === undefined) return null;
  return <TlsFieldset saved={saved.value === "true"} on={valueOf(TLS_SWITCH) === "true"} control={control} testId={testId} />;
}

/**
 * The TLS fields of one connection, wherever its values live (the settings, or a row of the
 * connections editor): `control` draws each by its settings key (`smpp.tls`, then `TLS_DETAILS`
 * while `on`), keyed, with its name, what it means and its problems. `saved`: TLS is on as saved,
 * so that turning it off says what that means.
 */
export function TlsFieldset({
  saved,
  on,
  control,
  testId,
}: {
  saved: boolean;
  on: boolean;
  control: (key: string) => ReactNode;
  testId: string;
}) {
  const { t } = useI18n();
  return (
    <fieldset className="settings-kind settings-tls" data-testid={testId} data-tls={on ? "on" : "off"}>
      <legend>{t("settings.tls.title")}</legend>
      <div className="form settings-fields">{control(TLS_SWITCH)}</div>
      {saved && !on && (
        <p className="connections-warning" role="status" data-testid={`${testId}-clear`}>
          {t("settings.tls.clear")}
        </p>
      )}
      {on && (
        <div className="form settings-fields" data-testid={`${testId}-details`}>
          {TLS_DETAILS.map((key) => control(key))}
        </div>
      )}
    </fieldset>
  );
}
