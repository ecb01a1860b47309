import type { ReactNode } from "react";
import type { SettingField } from "../../bindings/SettingField";
import { formatRoute } from "../../hooks/useHashRoute";
import { useI18n } from "../../i18n/context";
import { Section } from "./Section";

/** The switch of the server's own TLS, and what it is served with (used only while it is on). */
export const SERVER_TLS = "smpp_server.tls";
export const SERVER_TLS_DETAILS: readonly string[] = ["smpp_server.tls_cert_file", "smpp_server.tls_key_file"];
const ORDER = ["smpp_server.enabled", "smpp_server.bind", "smpp_server.port", SERVER_TLS, ...SERVER_TLS_DETAILS];

/** Whether a setting is shown in this section: all of [smpp_server]. */
export function inSmppServerSection(field: SettingField): boolean {
  return field.section === "smpp_server";
}

/**
 * smsdesk's own SMPP server, for the office's systems that send only over SMPP: whether it
 * serves, where, and over TLS with which certificate (shown only while TLS is on). Each field is
 * drawn by `control`, as in the rest of the form; its accounts are on the API keys screen.
 */
export function SmppServerSection({
  fields,
  valueOf,
  control,
}: {
  fields: readonly SettingField[];
  valueOf: (key: string) => string;
  control: (key: string) => ReactNode;
}) {
  const { t } = useI18n();
  const ours = fields.filter(inSmppServerSection);
  if (ours.length === 0) return null;
  const tlsOn = valueOf(SERVER_TLS) === "true";
  const keys = [...ORDER.filter((k) => ours.some((f) => f.key === k)), ...ours.map((f) => f.key).filter((k) => !ORDER.includes(k))];
  return (
    <Section
      id="smpp-server"
      title={t("settings.section.smppServer")}
      intro={
        <>
          {t("settings.section.smppServer.intro")}{" "}
          <a href={formatRoute({ section: "keys" })} data-testid="settings-smpp-accounts-link">
            {t("settings.section.smppServer.accounts")}
          </a>
        </>
      }
    >
      <div className="form settings-fields">
        {keys.filter((k) => tlsOn || !SERVER_TLS_DETAILS.includes(k)).map((k) => control(k))}
      </div>
    </Section>
  );
}
