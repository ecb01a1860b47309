import { useId } from "react";
import { useI18n } from "../../i18n/context";
import type { Unfilled } from "./placeholders";

/**
 * Before a written text holding a template's `{placeholders}` is sent as it is: what they are,
 * and a choice between using the template (and giving their values) and sending the text as
 * written.
 */
export function UnfilledConfirm({
  unfilled,
  onUseTemplate,
  onSendAnyway,
}: {
  unfilled: Unfilled;
  onUseTemplate: () => void;
  onSendAnyway: () => void;
}) {
  const { t } = useI18n();
  const headingId = useId();
  const names = unfilled.names.map((n) => `{${n}}`).join(", ");
  return (
    <div className="notice notice-warning" role="alertdialog" aria-labelledby={headingId} data-testid="send-unfilled">
      <h3 id={headingId}>{t("send.unfilled.title", { names })}</h3>
      <p>{t("send.unfilled.body", { template: unfilled.template.name })}</p>
      <div className="row-actions">
        <button type="button" className="button" onClick={onUseTemplate} data-testid="send-unfilled-use" autoFocus>
          {t("send.unfilled.useTemplate")}
        </button>
        <button type="button" className="button button-secondary" onClick={onSendAnyway} data-testid="send-unfilled-send">
          {t("send.unfilled.sendAnyway")}
        </button>
      </div>
    </div>
  );
}
