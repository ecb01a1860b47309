import { useI18n } from "../i18n/context";

/** The bar above a detail that replaced its list: a way back, and the keyboard hint. */
export function DetailBar({ backLabel, onClose }: { backLabel: string; onClose: () => void }) {
  const { t } = useI18n();
  return (
    <div className="detail-bar">
      <button type="button" className="button button-secondary back-button" onClick={onClose} data-testid="detail-back">
        <span aria-hidden="true">← </span>
        {backLabel}
      </button>
      <span className="hint">{t("detail.escape")}</span>
    </div>
  );
}
