import { useEffect, useState } from "react";
import { useI18n } from "../i18n/context";
import type { I18n } from "../i18n/i18n";
import { datePattern, readTyped, showTyped } from "../views/localTime";

/** How a date (and time) is typed in the reader's language: "jj/mm/aaaa hh:mm". */
export function typedPattern(i18n: Pick<I18n, "t" | "formatTag">, withTime: boolean): string {
  const { t, formatTag } = i18n;
  const names = {
    day: t("date.part.day"),
    month: t("date.part.month"),
    year: t("date.part.year"),
    hour: t("date.part.hour"),
    minute: t("date.part.minute"),
  };
  return datePattern(formatTag, names, withTime);
}

/**
 * The app's own date field (never the browser's "mm/dd/yyyy"): one text field read in the
 * locale's order, its placeholder saying how ("jj/mm/aaaa hh:mm"). `value` is canonical
 * (`YYYY-MM-DD`, or `YYYY-MM-DDTHH:MM` with `withTime`), "" when empty; what cannot be read is
 * given as typed, which no canonical check accepts, so the caller says what is wrong beside it.
 */
export function DateTimeField({
  id,
  value,
  onChange,
  withTime = false,
  invalid = false,
  describedBy,
  disabled = false,
  name,
  testId,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  withTime?: boolean;
  invalid?: boolean;
  describedBy?: string | undefined;
  disabled?: boolean;
  name?: string;
  testId?: string;
}) {
  const i18n = useI18n();
  const { formatTag } = i18n;
  const [text, setText] = useState(() => showTyped(value, formatTag));
  const given = (typed: string): string => readTyped(typed, formatTag, withTime) ?? typed.trim();

  // A value set from elsewhere (cleared after a send, a saved filter applied) shows as if typed.
  useEffect(() => {
    setText((typed) => (given(typed) === value ? typed : showTyped(value, formatTag)));
    // `given` depends only on the locale and the mode, both in the list.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [value, formatTag, withTime]);

  return (
    <input
      id={id}
      name={name}
      type="text"
      autoComplete="off"
      spellCheck={false}
      placeholder={typedPattern(i18n, withTime)}
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        onChange(given(e.target.value));
      }}
      disabled={disabled}
      aria-invalid={invalid ? "true" : undefined}
      aria-describedby={describedBy}
      data-testid={testId}
      data-value={value}
    />
  );
}
