import { useId } from "react";
import type { MessageRecord } from "../../bindings/MessageRecord";
import { useI18n } from "../../i18n/context";
import { copyHref } from "./copy";

/**
 * "Copy to a new message": for a message that needs correcting (a wrong number, a refusal), the
 * compose form opened with its number, text and kind, to edit and send as a new message. The
 * message itself is never changed.
 */
export function CopyToNew({ message }: { message: MessageRecord }) {
  const { t } = useI18n();
  const hintId = useId();
  return (
    <p className="copy-to-new" data-testid="copy-to-new-line">
      <a href={copyHref(message)} className="button button-secondary" aria-describedby={hintId} data-testid="copy-to-new">
        {t("detail.copy")}
      </a>{" "}
      <span className="hint" id={hintId}>
        {t("detail.copy.hint")}
      </span>
    </p>
  );
}
