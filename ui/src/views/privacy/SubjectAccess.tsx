import { useId, useState, type FormEvent } from "react";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import type { SubjectAccess as Access } from "../../bindings/SubjectAccess";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useI18n } from "../../i18n/context";
import { errorsOf, NumberField } from "./NumberField";
import { SaveRecord } from "./SaveRecord";
import { SubjectRecordView } from "./SubjectRecordView";

type Lookup =
  | { readonly kind: "idle" }
  | { readonly kind: "busy" }
  | { readonly kind: "found"; readonly access: Access }
  | { readonly kind: "failed"; readonly error: BackendError };

/**
 * Access by number (a subject access request): everything held about one number, counted and
 * listed, to save as JSON or CSV for its owner. The engine audits the access with the number's
 * hash.
 */
export function SubjectAccessPanel({ backend }: { backend: Backend }) {
  const { t } = useI18n();
  const ids = { heading: useId(), blocked: useId() };
  const [number, setNumber] = useState("");
  const [lookup, setLookup] = useState<Lookup>({ kind: "idle" });
  const blockedBy = number.trim() === "" ? t("privacy.number.blocked") : null;
  const busy = lookup.kind === "busy";

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (busy || blockedBy !== null) return;
    setLookup({ kind: "busy" });
    backend.subjectAccess({ number: number.trim() }).then(
      (access) => setLookup({ kind: "found", access }),
      (e: unknown) => setLookup({ kind: "failed", error: asBackendError(e) }),
    );
  };

  return (
    <section className="panel" aria-labelledby={ids.heading} data-testid="privacy-access">
      <h2 id={ids.heading}>{t("privacy.access.title")}</h2>
      <p className="panel-intro">{t("privacy.access.intro")}</p>
      <form className="form" onSubmit={submit} aria-busy={busy} noValidate data-testid="privacy-access-form">
        <NumberField
          value={number}
          onChange={setNumber}
          errors={lookup.kind === "failed" ? errorsOf(lookup.error.errors, "number") : []}
          testId="privacy-access-number"
        />
        <div className="form-actions row-actions">
          <button
            type="submit"
            className="button"
            disabled={busy || blockedBy !== null}
            aria-describedby={blockedBy === null ? undefined : ids.blocked}
            data-testid="privacy-access-go"
          >
            {busy ? t("privacy.access.busy") : t("privacy.access.go")}
          </button>
          {blockedBy !== null && (
            <span className="hint blocked" id={ids.blocked}>
              {blockedBy}
            </span>
          )}
        </div>
      </form>
      <div aria-live="polite">
        {lookup.kind === "failed" && (
          <ErrorNotice title={t("privacy.access.failed")} error={lookup.error} testId="privacy-access-error" />
        )}
      </div>
      {lookup.kind === "found" && <AccessResult backend={backend} access={lookup.access} />}
    </section>
  );
}

/** What is held about the number: how much of each, each listed, and the record to save. */
function AccessResult({ backend, access }: { backend: Backend; access: Access }) {
  const { t } = useI18n();
  const headingId = useId();
  const r = access.record;
  const nothing = r.messages.length + r.replies.length + r.opt_outs.length === 0;
  return (
    <section className="privacy-result" aria-labelledby={headingId} data-testid="privacy-access-result" data-number={r.number}>
      <h3 id={headingId}>{t("privacy.access.heading", { number: r.number })}</h3>
      <p
        data-testid="privacy-access-counts"
        data-messages={r.messages.length}
        data-replies={r.replies.length}
        data-optouts={r.opt_outs.length}
      >
        {nothing
          ? t("privacy.access.nothing")
          : t("privacy.access.counts", { messages: r.messages.length, replies: r.replies.length, optOuts: r.opt_outs.length })}
      </p>
      <SubjectRecordView record={r} />
      <SaveRecord backend={backend} access={access} />
    </section>
  );
}
