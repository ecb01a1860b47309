import type { ReceiptView } from "../../bindings/ReceiptView";
import { useI18n } from "../../i18n/context";
import { Badge } from "../Badge";
import { Disclosure } from "../Disclosure";
import { Exact, Fact, Facts } from "../Facts";
import { errMeaning, messageStateMeaning, messageStateName, statMeaning } from "./receiptCodes";
import { printable, readTlvs, spacedHex, tlvName } from "./tlv";
import { ScrollArea } from "../ScrollArea";

/**
 * One report exactly as received: what processing made of it first (whether it was a repeat),
 * then what decides (its status word, what it says, err, when, its id and what it was matched
 * to), then every other parsed field, its text, its bytes on demand, its TLVs and headers, all
 * of which `fold` keeps in one disclosure. Nothing here is rewritten: values are shown as stored.
 */
export function ReceiptEvidence({
  receipt: r,
  late = false,
  fold = false,
}: {
  receipt: ReceiptView;
  late?: boolean;
  /** Keep what decides (the status word first) in view, and fold every other field and the bytes. */
  fold?: boolean;
}) {
  const { t } = useI18n();
  return (
    <div className="evidence" data-testid="receipt-evidence" data-receipt-id={r.id}>
      <p className="badges">
        <Badge tone={r.kind === "unparseable" ? "danger" : "neutral"}>{t(`receiptKind.${r.kind}`)}</Badge>
        {r.is_repeat && (
          <Badge tone="warning">
            <span data-testid="receipt-repeat">{t("receipt.repeat")}</span>
          </Badge>
        )}
        {late && (
          <Badge tone="warning">
            <span data-testid="receipt-late">{t("receipt.late")}</span>
          </Badge>
        )}
        {r.flags.map((f) => (
          <Badge key={f} tone="warning">
            {t(`flag.${f}`)}
          </Badge>
        ))}
      </p>
      {r.is_repeat && <p className="hint">{t("receipt.repeat.explained")}</p>}
      {late && <p className="hint">{t("receipt.late.explained")}</p>}
      {r.parse_error !== null && (
        <p className="notice notice-warning" data-testid="receipt-parse-error">
          {t("receipt.parseError", { error: r.parse_error })}
        </p>
      )}
      <KeyFacts receipt={r} />
      {fold ? (
        <Disclosure summary={t("receipt.more")} testId="receipt-more">
          <OtherFacts receipt={r} />
          <Raw receipt={r} />
        </Disclosure>
      ) : (
        <>
          <OtherFacts receipt={r} />
          <Raw receipt={r} />
        </>
      )}
    </div>
  );
}

/** A code exactly as the receipt gave it, and what it means in plain words. */
function Explained({ code, meaning, testId }: { code: string; meaning: string; testId: string }) {
  return (
    <>
      <code>{code}</code>{" "}
      <span className="muted" data-testid={testId}>
        — {meaning}
      </span>
    </>
  );
}

/** What decides: the status word first, what it says, err, when, the id it carried and what it was matched to. */
function KeyFacts({ receipt: r }: { receipt: ReceiptView }) {
  const { t, formatDateTimePrecise } = useI18n();
  return (
    <Facts testId="receipt-facts">
      <Fact label={t("receipt.stat")} testId="receipt-stat">
        {r.stat_raw === null && r.stat === null ? null : (
          <Explained code={r.stat_raw ?? r.stat ?? ""} meaning={statMeaning(r.stat, t)} testId="receipt-stat-meaning" />
        )}
      </Fact>
      <Fact label={t("receipt.says")} testId="receipt-reported-state">
        {r.reported_state === null ? t("receipt.says.nothing") : t(`reportedState.${r.reported_state}`)}
      </Fact>
      <Fact label={t("receipt.err")} testId="receipt-err">
        {r.err === null ? null : <Explained code={r.err} meaning={errMeaning(r.err, t)} testId="receipt-err-meaning" />}
      </Fact>
      <Fact label={t("receipt.doneDate")} testId="receipt-done">
        {r.done_date === null ? null : (
          <>
            <code>{r.done_date}</code>
            {r.done_ts !== null && <span className="muted"> ({r.done_ts})</span>}
          </>
        )}
      </Fact>
      <Fact label={t("receipt.receivedAt")} testId="receipt-received-at">
        <time dateTime={new Date(r.received_at_ms).toISOString()}>{formatDateTimePrecise(r.received_at_ms)}</time>
      </Fact>
      <Fact label={t("receipt.messageId")} testId="receipt-message-id">
        {r.message_id_raw === null ? null : <Exact value={r.message_id_raw} />}
      </Fact>
      <Fact label={t("receipt.correlation")} testId="receipt-correlation">
        {r.correlation === null
          ? null
          : r.message_id !== null
            ? t(r.correlated_by === "operator" ? "receipt.attachedTo" : "receipt.matchedTo", { id: String(r.message_id) })
            : t(`correlation.${r.correlation}`)}
      </Fact>
    </Facts>
  );
}

/** Every other parsed field, as stored. */
function OtherFacts({ receipt: r }: { receipt: ReceiptView }) {
  const { t, formatDateTimePrecise } = useI18n();
  return (
    <Facts testId="receipt-other-facts">
      <Fact label={t("receipt.submitDate")}>
        {r.submit_date === null ? null : (
          <>
            <code>{r.submit_date}</code>
            {r.submit_ts !== null && <span className="muted"> ({r.submit_ts})</span>}
          </>
        )}
      </Fact>
      <Fact label={t("receipt.textId")}>{r.text_id === null ? null : <Exact value={r.text_id} />}</Fact>
      <Fact label={t("receipt.eventId")}>{r.event_id === null ? null : <Exact value={r.event_id} />}</Fact>
      <Fact label={t("receipt.sub")}>{r.sub}</Fact>
      <Fact label={t("receipt.dlvrd")}>{r.dlvrd}</Fact>
      <Fact label={t("receipt.messageState")} testId="receipt-message-state">
        {r.message_state === null ? null : (
          <Explained
            code={[String(r.message_state), messageStateName(r.message_state)].filter((x) => x !== null).join(" ")}
            meaning={messageStateMeaning(r.message_state, t)}
            testId="receipt-message-state-meaning"
          />
        )}
      </Fact>
      <Fact label={t("receipt.networkError")}>{r.network_error_code}</Fact>
      <Fact label={t("receipt.processed")}>
        {r.processed_at_ms === null ? (
          <span data-testid="receipt-unprocessed">{t("receipt.notProcessed")}</span>
        ) : (
          formatDateTimePrecise(r.processed_at_ms)
        )}
      </Fact>
      <Fact label={t("receipt.source")}>{t(`receiptSource.${r.source}`)}</Fact>
      <Fact label={t("receipt.provider")}>{r.provider}</Fact>
      <Fact label={t("evidence.connection")}>{r.connection}</Fact>
      <Fact label={t("evidence.session")}>{r.session_id}</Fact>
      <Fact label={t("evidence.sequence")}>{r.sequence_number === null ? null : String(r.sequence_number)}</Fact>
      <Fact label={t("receipt.from")}>{r.source_addr}</Fact>
      <Fact label={t("receipt.to")}>{r.destination_addr}</Fact>
      <Fact label="esm_class">{r.esm_class === null ? null : String(r.esm_class)}</Fact>
      <Fact label="data_coding">{r.data_coding === null ? null : String(r.data_coding)}</Fact>
      <Fact label={t("receipt.part")}>
        {r.parts > 1 ? t("receipt.part.value", { part: r.part + 1, parts: r.parts }) : null}
      </Fact>
      <Fact label={t("receipt.logicalEvent")}>{r.logical_event_id === null ? null : String(r.logical_event_id)}</Fact>
      <Fact label={t("receipt.parser")}>{String(r.parser_version)}</Fact>
    </Facts>
  );
}

/** Its text, its bytes on demand, its TLVs and headers. */
function Raw({ receipt: r }: { receipt: ReceiptView }) {
  const { t } = useI18n();
  const tlvs = readTlvs(r.tlvs);
  return (
    <>
      <h4 className="evidence-heading">{t("receipt.text")}</h4>
      {r.raw_text === null ? (
        <p className="muted">{t("receipt.text.none")}</p>
      ) : (
        <pre className="raw" data-testid="receipt-text">
          {r.raw_text}
        </pre>
      )}
      <Disclosure summary={t("receipt.hex")} testId="receipt-hex">
        <pre className="raw hex" data-testid="receipt-raw-hex">
          {r.raw_hex === "" ? t("receipt.hex.empty") : spacedHex(r.raw_hex)}
        </pre>
        {r.pdu_hex !== null && (
          <>
            <h4 className="evidence-heading">{t("receipt.pdu")}</h4>
            <pre className="raw hex" data-testid="receipt-pdu-hex">
              {spacedHex(r.pdu_hex)}
            </pre>
          </>
        )}
      </Disclosure>
      <h4 className="evidence-heading">{t("receipt.tlvs")}</h4>
      {tlvs === null ? (
        <pre className="raw">{JSON.stringify(r.tlvs, null, 2)}</pre>
      ) : tlvs.length === 0 ? (
        <p className="muted">{t("receipt.tlvs.none")}</p>
      ) : (
        <ScrollArea>
          <table className="table table-compact" data-testid="receipt-tlvs">
            <thead>
              <tr>
                <th scope="col">{t("receipt.tlv.tag")}</th>
                <th scope="col">{t("receipt.tlv.hex")}</th>
                <th scope="col">{t("receipt.tlv.text")}</th>
              </tr>
            </thead>
            <tbody>
              {tlvs.map((tlv, i) => (
                <tr key={`${tlv.tag}:${i}`}>
                  <td>
                    <code>{tlv.tag}</code>
                    {tlvName(tlv.tag) !== null && <span className="muted"> {tlvName(tlv.tag)}</span>}
                  </td>
                  <td>
                    <code className="hex">{spacedHex(tlv.hex)}</code>
                  </td>
                  <td>{printable(tlv.hex) ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollArea>
      )}
      {r.headers !== null && r.headers !== undefined && (
        <Disclosure summary={t("receipt.headers")}>
          <pre className="raw">{JSON.stringify(r.headers, null, 2)}</pre>
        </Disclosure>
      )}
    </>
  );
}
