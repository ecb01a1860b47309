import { useId } from "react";
import type { FieldError } from "../../bindings/FieldError";
import { useI18n } from "../../i18n/context";
import { fieldProblem } from "../../i18n/server/words";

/** The engine's rule (engine `accounts/password.rs`): at least this many characters. */
export const MIN_PASSWORD_CHARS = 10;
/** And at most this many. */
export const MAX_PASSWORD_CHARS = 200;

export type PasswordProblem = "password.tooShort" | "password.tooLong" | "password.isName" | "password.mismatch";

/**
 * What is wrong with a new password before it is sent, by the engine's own rule (which decides
 * anyway), and whether its confirmation matches; null when nothing is.
 */
export function passwordProblem(password: string, confirmation: string, name: string): PasswordProblem | null {
  const chars = [...password].length;
  if (chars < MIN_PASSWORD_CHARS) return "password.tooShort";
  if (chars > MAX_PASSWORD_CHARS) return "password.tooLong";
  if (name.trim() !== "" && password.trim().toLowerCase() === name.trim().toLowerCase()) return "password.isName";
  if (password !== confirmation) return "password.mismatch";
  return null;
}

/**
 * A new password typed twice, with the rule beside it and what is wrong with it: `problem` (found
 * here) and `errors` (the engine's, for `field`).
 */
export function PasswordFields({
  password,
  confirmation,
  onPassword,
  onConfirmation,
  problem,
  errors,
  field,
  testId,
  label,
}: {
  password: string;
  confirmation: string;
  onPassword: (value: string) => void;
  onConfirmation: (value: string) => void;
  /** Shown once the person tried to submit. */
  problem: PasswordProblem | null;
  errors: readonly FieldError[];
  /** The name the engine gives this password in its field errors. */
  field: string;
  /** Prefix of the fields' test ids: `<testId>-password`, `<testId>-confirm`. */
  testId: string;
  label?: string;
}) {
  const { t } = useI18n();
  const ids = { password: useId(), confirm: useId(), hint: useId(), problem: useId() };
  const engine = errors.filter((e) => e.field === field);
  const wrong = problem !== null || engine.length > 0;
  const confirmWrong = problem === "password.mismatch";
  const describedBy = [ids.hint, wrong ? ids.problem : null].filter((x) => x !== null).join(" ");
  return (
    <>
      <div className="field">
        <label htmlFor={ids.password}>{label ?? t("password.new")}</label>
        <input
          id={ids.password}
          type="password"
          autoComplete="new-password"
          required
          aria-required="true"
          maxLength={MAX_PASSWORD_CHARS}
          value={password}
          onChange={(e) => onPassword(e.target.value)}
          aria-invalid={wrong && !confirmWrong}
          aria-describedby={describedBy}
          data-testid={`${testId}-password`}
        />
        <p className="hint" id={ids.hint}>
          {t("password.rule", { min: MIN_PASSWORD_CHARS })}
        </p>
      </div>
      <div className="field">
        <label htmlFor={ids.confirm}>{t("password.confirm")}</label>
        <input
          id={ids.confirm}
          type="password"
          autoComplete="new-password"
          required
          aria-required="true"
          maxLength={MAX_PASSWORD_CHARS}
          value={confirmation}
          onChange={(e) => onConfirmation(e.target.value)}
          aria-invalid={confirmWrong}
          aria-describedby={confirmWrong ? ids.problem : undefined}
          data-testid={`${testId}-confirm`}
        />
      </div>
      {wrong && (
        <div className="field-wide" id={ids.problem} data-testid={`${testId}-password-problem`}>
          {problem !== null && (
            <p className="hint blocked" data-problem={problem}>
              {problem === "password.tooShort" ? t(problem, { min: MIN_PASSWORD_CHARS }) : problem === "password.tooLong" ? t(problem, { max: MAX_PASSWORD_CHARS }) : t(problem)}
            </p>
          )}
          {engine.map((e) => (
            <p key={e.code} className="hint blocked" data-code={e.code} data-reason={e.params["reason"]}>
              {t("password.engineSays", { message: fieldProblem(e, t) })}
            </p>
          ))}
        </div>
      )}
    </>
  );
}
