import { useId, useState } from "react";
import { useNotesState, type NotesChoice } from "../../desktop/notesChoice";
import { useI18n } from "../../i18n/context";

/**
 * "Notify me on this computer": ticking it asks the browser's permission (the one moment it is
 * asked, on the person's click); a browser that refused says where to allow it.
 */
export function NotifyToggle({ choice }: { choice: NotesChoice }) {
  const { t } = useI18n();
  const { wanted, permission } = useNotesState(choice);
  const [asking, setAsking] = useState(false);
  const hintId = useId();
  const choose = (on: boolean): void => {
    setAsking(true);
    void choice.choose(on).finally(() => setAsking(false));
  };
  return (
    <div className="field alerts-notify" data-testid="alerts-notify" data-permission={permission}>
      <label className="choice">
        <input
          type="checkbox"
          checked={wanted && permission === "granted"}
          disabled={asking || permission === "denied"}
          onChange={(e) => choose(e.target.checked)}
          aria-describedby={hintId}
          data-testid="alerts-notify-toggle"
        />
        <span className="choice-label">{t("alerts.notify.label")}</span>
      </label>
      <p className="hint" id={hintId}>
        {permission === "denied" ? t("alerts.notify.denied") : t("alerts.notify.hint")}
      </p>
    </div>
  );
}
