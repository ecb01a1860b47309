import { useId } from "react";
import { useAccess } from "../../access/context";
import type { RuleThreshold } from "../../bindings/RuleThreshold";
import { formatRoute } from "../../hooks/useHashRoute";
import { useI18n } from "../../i18n/context";
import { ruleName, ruleWhen } from "../../i18n/alerts/words";
import { ScrollArea } from "../../components/ScrollArea";

/** Each rule: when it fires, and the setting of its threshold (which admins change in Settings). */
export function AlertRules({ rules }: { rules: readonly RuleThreshold[] }) {
  const { t } = useI18n();
  const { may } = useAccess();
  const headingId = useId();
  return (
    <section className="panel" aria-labelledby={headingId} data-testid="alerts-rules">
      <h2 id={headingId}>{t("alerts.rules.title")}</h2>
      <p className="panel-intro">{t("alerts.rules.intro")}</p>
      <ScrollArea>
        <table className="table table-stack" aria-labelledby={headingId}>
          <thead>
            <tr>
              <th scope="col">{t("alerts.rules.col.rule")}</th>
              <th scope="col">{t("alerts.rules.col.when")}</th>
              <th scope="col">{t("alerts.rules.col.setting")}</th>
            </tr>
          </thead>
          <tbody>
            {rules.map((r) => (
              <tr key={r.rule} data-testid="alert-rule" data-rule={r.rule} data-value={r.value ?? ""}>
                <th scope="row">{ruleName(r.rule, t)}</th>
                <td data-label={t("alerts.rules.col.when")} data-testid="alert-rule-when">
                  {ruleWhen(r.rule, r.value, t)}
                </td>
                <td data-label={t("alerts.rules.col.setting")} data-testid="alert-rule-setting">
                  {r.setting === null ? (
                    <span className="muted">{t("alerts.rules.fixed")}</span>
                  ) : (
                    <>
                      <SettingKey name={r.setting} /> = {r.value}
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollArea>
      {may.admin && (
        <p className="alerts-more">
          <a href={formatRoute({ section: "settings" })} data-testid="alerts-rules-settings">
            {t("alerts.rules.change")}
          </a>
        </p>
      )}
    </section>
  );
}

/** A setting's key, which may break after its section's dot but not inside a word. */
function SettingKey({ name }: { name: string }) {
  const [section, ...rest] = name.split(".");
  return (
    <code>
      {section}.<wbr />
      {rest.join(".")}
    </code>
  );
}
