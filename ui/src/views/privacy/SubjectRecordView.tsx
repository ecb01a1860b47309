import { useId, type ReactNode } from "react";
import type { OptOutEntry } from "../../bindings/OptOutEntry";
import type { SubjectMessage } from "../../bindings/SubjectMessage";
import type { SubjectRecord } from "../../bindings/SubjectRecord";
import type { SubjectReply } from "../../bindings/SubjectReply";
import { useI18n } from "../../i18n/context";
import { kindsWords, reasonWords } from "../inbox/words";
import { ScrollArea } from "../../components/ScrollArea";

/** A moment in a cell: the reader's date and time, the exact one for machines. */
function When({ ms }: { ms: number }) {
  const { formatDateTime } = useI18n();
  return <time dateTime={new Date(ms).toISOString()}>{formatDateTime(ms)}</time>;
}

/** One list of the record, under its heading, as a compact table (a card per row at phone width). */
function RecordTable({ title, columns, testId, children }: { title: string; columns: string[]; testId: string; children: ReactNode }) {
  const headingId = useId();
  return (
    <>
      <h4 id={headingId}>{title}</h4>
      <ScrollArea>
        <table className="table table-stack" aria-labelledby={headingId} data-testid={testId}>
          <thead>
            <tr>
              {columns.map((c) => (
                <th scope="col" key={c}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>{children}</tbody>
        </table>
      </ScrollArea>
    </>
  );
}

/** Everything held about a number, list by list: its messages, its replies, its opt-out entries. */
export function SubjectRecordView({ record }: { record: SubjectRecord }) {
  const { t } = useI18n();
  return (
    <>
      {record.messages.length > 0 && (
        <RecordTable
          title={t("privacy.access.messages")}
          testId="privacy-access-messages"
          columns={[
            t("privacy.access.col.id"),
            t("privacy.access.col.date"),
            t("privacy.access.col.kind"),
            t("privacy.access.col.status"),
            t("privacy.access.col.text"),
          ]}
        >
          {record.messages.map((m) => (
            <MessageRow key={m.id} message={m} />
          ))}
        </RecordTable>
      )}
      {record.replies.length > 0 && (
        <RecordTable
          title={t("privacy.access.replies")}
          testId="privacy-access-replies"
          columns={[t("privacy.access.col.id"), t("privacy.access.col.date"), t("privacy.access.col.intent"), t("privacy.access.col.text")]}
        >
          {record.replies.map((r) => (
            <ReplyRow key={r.id} reply={r} />
          ))}
        </RecordTable>
      )}
      {record.opt_outs.length > 0 && (
        <RecordTable
          title={t("privacy.access.optOuts")}
          testId="privacy-access-optouts"
          columns={[t("privacy.access.col.since"), t("optOuts.col.kinds"), t("privacy.access.col.why"), t("privacy.access.col.ended")]}
        >
          {record.opt_outs.map((e) => (
            <OptOutRow key={e.id} entry={e} />
          ))}
        </RecordTable>
      )}
    </>
  );
}

/** A text as held, or when it was removed. */
function HeldText({ text, removedAtMs }: { text: string | null; removedAtMs: number | null }) {
  const { t, formatDateTime } = useI18n();
  if (text !== null) return <span className="preview-text">{text}</span>;
  return (
    <span className="muted" data-testid="privacy-access-text-removed">
      {removedAtMs === null ? t("privacy.access.removedUndated") : t("privacy.access.removed", { at: formatDateTime(removedAtMs) })}
    </span>
  );
}

function MessageRow({ message: m }: { message: SubjectMessage }) {
  const { t } = useI18n();
  return (
    <tr data-testid="privacy-access-message" data-id={m.id} data-status={m.status}>
      <th scope="row" className="num">
        {m.id}
      </th>
      <td data-label={t("privacy.access.col.date")}>
        <When ms={m.created_at_ms} />
      </td>
      <td data-label={t("privacy.access.col.kind")}>{t(`messageKind.${m.kind}`)}</td>
      <td data-label={t("privacy.access.col.status")}>
        {t(`queueStatus.${m.status}`)}
        {m.state !== null && <div className="hint">{t(`deliveryState.${m.state}`)}</div>}
      </td>
      <td data-label={t("privacy.access.col.text")}>
        <HeldText text={m.text} removedAtMs={m.text_removed_at_ms} />
        {m.number_removed && <div className="hint">{t("privacy.access.numberHashed")}</div>}
      </td>
    </tr>
  );
}

function ReplyRow({ reply: r }: { reply: SubjectReply }) {
  const { t } = useI18n();
  const intent = r.intent === "opt_out" || r.intent === "opt_in" ? t(`privacy.intent.${r.intent}`) : null;
  return (
    <tr data-testid="privacy-access-reply" data-id={r.id}>
      <th scope="row" className="num">
        {r.id}
      </th>
      <td data-label={t("privacy.access.col.date")}>
        <When ms={r.received_at_ms} />
      </td>
      <td data-label={t("privacy.access.col.intent")}>{intent ?? <span className="muted">—</span>}</td>
      <td data-label={t("privacy.access.col.text")}>
        <HeldText text={r.text} removedAtMs={null} />
      </td>
    </tr>
  );
}

function OptOutRow({ entry: e }: { entry: OptOutEntry }) {
  const { t } = useI18n();
  return (
    <tr data-testid="privacy-access-optout" data-id={e.id} data-current={e.removed_at_ms === null}>
      <th scope="row" className="nowrap">
        <When ms={e.created_at_ms} />
      </th>
      <td data-label={t("optOuts.col.kinds")}>{kindsWords(e.kinds, t)}</td>
      <td data-label={t("privacy.access.col.why")}>{reasonWords(e, t)}</td>
      <td data-label={t("privacy.access.col.ended")}>
        {e.removed_at_ms === null ? <span className="muted">{t("privacy.access.stillOn")}</span> : <When ms={e.removed_at_ms} />}
      </td>
    </tr>
  );
}
