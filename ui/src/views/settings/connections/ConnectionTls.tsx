/** A connection's TLS in the editor: the switch and what the certificate is checked with, saved with the connection. */
import type { ReactNode } from "react";
import { useI18n } from "../../../i18n/context";
import { settingHelp, settingLabel } from "../labels";
import { TLS_SWITCH } from "../tls";
import { TlsFieldset } from "../TlsFields";
import type { ConnectionDraft, Problem, TlsTextField } from "./drafts";
import { CheckField, TextField } from "./fields";

/** The field that wants a line of its own: the pin, 95 characters with its colons. */
const WIDE: ReadonlySet<TlsTextField> = new Set(["tls_pin_sha256"]);

/** The draft's field a setting's key names (`smpp.tls_pin_sha256` → `tls_pin_sha256`). */
const fieldOf = (key: string): string => key.replace(/^smpp\./, "");

/**
 * The row's TLS, drawn as the Settings screen draws the connection's own (the same fieldset, names
 * and help): each field bound to the draft, with its problems (as typed, or the engine's) below it.
 */
export function ConnectionTls({
  id,
  draft,
  edit,
  problemsOf,
}: {
  /** The row's id, which each field's own is made from. */
  id: string;
  draft: ConnectionDraft;
  edit: (patch: Partial<ConnectionDraft>) => void;
  problemsOf: (field: string) => Problem[];
}) {
  const { t } = useI18n();
  const control = (key: string): ReactNode => {
    const help = settingHelp(t, key);
    const hint = help === null ? {} : { hint: help };
    if (key === TLS_SWITCH) {
      return (
        <CheckField
          key={key}
          id={`${id}-tls`}
          label={settingLabel(t, key)}
          {...hint}
          checked={draft.tls}
          onChange={(tls) => edit({ tls })}
          testId="connection-tls-switch"
          field="tls"
        />
      );
    }
    const field = fieldOf(key) as TlsTextField;
    return (
      <TextField
        key={key}
        id={`${id}-${field}`}
        label={settingLabel(t, key)}
        value={draft[field]}
        onChange={(value) => edit({ [field]: value })}
        testId={`connection-${field.replace(/_/g, "-")}`}
        field={field}
        {...hint}
        wide={WIDE.has(field)}
        problems={problemsOf(field)}
      />
    );
  };
  return <TlsFieldset saved={draft.tls_saved.tls} on={draft.tls} control={control} testId="connection-tls" />;
}
