import type { MessageDetail } from "../../bindings/MessageDetail";
import type { MessageRecord } from "../../bindings/MessageRecord";
import { Disclosure } from "../../components/Disclosure";
import { Exact, Fact, Facts } from "../../components/Facts";
import { useI18n } from "../../i18n/context";
import type { Translate } from "../../i18n/i18n";
import { NumberRemoved, TextRemoved } from "./removed";
import { formatMicros } from "../guardrails/money";

const ENCODINGS = ["gsm7", "ucs2"] as const;

/**
 * Where the message came from, with who when it was recorded: "Composed by Marie", "Imported
 * from CSV by Marie", "API key website". A message handed in before people were recorded says
 * its channel as before (an API one still names its key).
 */
export function originWords(m: MessageRecord, t: Translate): string {
  const name = m.submitted_by ?? (m.channel === "api" ? m.api_key_name : null);
  return name === null ? t(`channel.${m.channel}`) : t(`message.origin.${m.channel}`, { name });
}

/**
 * What was sent, to whom, and when: the message as it was handed in. Only retention or an
 * erasure changes it, removing its text or its number: then it says when and why, in their place.
 */
export function MessageHeader({ detail, currency = null }: { detail: MessageDetail; currency?: string | null }) {
  const { t, formatDateTime, formatNumber, formatTag } = useI18n();
  const m = detail.message;
  // Smart encoding replaced characters: the text as sent, and as it was handed in.
  const given = m.text_removed === null ? detail.text_as_given : null;
  const cost = detail.cost_micros;
  return (
    <div className="message-header" data-testid="message-header">
      <Facts>
        <Fact label={t("message.destination")} testId="detail-destination">
          {m.number_removed !== null ? (
            <NumberRemoved tombstone={m.number_removed} hash={m.destination} />
          ) : (
            <>
              <span className="phone">{m.destination}</span>
              {m.destination_raw !== m.destination && (
                <span className="muted"> {t("message.destinationRaw", { raw: m.destination_raw })}</span>
              )}
            </>
          )}
        </Fact>
        <Fact label={t("message.kind")} testId="detail-kind">
          {t(`messageKind.${m.kind}`)}
        </Fact>
        <Fact label={t("message.origin")} testId="detail-origin">
          {originWords(m, t)}
        </Fact>
        <Fact label={t("message.created")} testId="detail-created">
          <time dateTime={new Date(m.created_at_ms).toISOString()}>{formatDateTime(m.created_at_ms)}</time>
        </Fact>
        <Fact label={t("message.clientRef")} testId="detail-client-ref">
          {m.client_ref === null ? null : <Exact value={m.client_ref} />}
        </Fact>
        <Fact label={t("message.encoding")} testId="detail-encoding">
          {(ENCODINGS as readonly string[]).includes(m.encoding)
            ? t(`encoding.${m.encoding as (typeof ENCODINGS)[number]}`)
            : m.encoding}
        </Fact>
        <Fact label={t("message.parts")} testId="detail-parts">
          {formatNumber(m.segments)}
        </Fact>
        <Fact label={t("message.cost")} testId="detail-cost">
          {cost === null
            ? null
            : currency === null
              ? formatNumber(cost / 1_000_000)
              : formatMicros(cost, currency, formatTag)}
        </Fact>
      </Facts>
      <h3 className="body-heading">{given === null ? t("message.text") : t("message.textAsSent")}</h3>
      {m.text_removed !== null ? (
        <TextRemoved tombstone={m.text_removed} />
      ) : (
        <>
          <p className="message-body" data-testid="message-body">
            {m.body}
          </p>
          {m.kind === "otp" && (
            <p className="hint" data-testid="message-otp-masked">
              {t("message.otpMasked")}
            </p>
          )}
          {given !== null && (
            <>
              <h3 className="body-heading">{t("message.textAsGiven")}</h3>
              <p className="message-body" data-testid="message-text-as-given">
                {given}
              </p>
              {detail.replaced_characters !== "" && (
                <p className="hint" data-testid="message-smart">
                  {t("message.smart", { chars: [...detail.replaced_characters].join(" ") })}
                </p>
              )}
            </>
          )}
        </>
      )}
      <Disclosure summary={t("message.more")} testId="message-more">
        <MessageRecordFacts message={m} route={detail.queue.route} pinned={detail.queue.pinned} />
      </Disclosure>
    </div>
  );
}

/**
 * Everything recorded about the message when it was handed in, with the route that took it and
 * the connection it is kept on, when known.
 */
export function MessageRecordFacts({
  message: m,
  route = null,
  pinned = null,
}: {
  message: MessageRecord;
  route?: string | null;
  pinned?: string | null;
}) {
  const { t, formatDateTime, formatNumber } = useI18n();
  return (
    <Facts testId="message-record">
      <Fact label={t("message.channel")}>{t(`channel.${m.channel}`)}</Fact>
      <Fact label={t("message.apiKey")}>
        {m.api_key_id === null ? null : `${m.api_key_name ?? "—"} (${formatNumber(m.api_key_id)})`}
      </Fact>
      <Fact label={t("message.priority")}>{formatNumber(m.priority)}</Fact>
      <Fact label={t("message.orderingKey")}>{m.ordering_key === null ? null : <Exact value={m.ordering_key} />}</Fact>
      <Fact label={t("message.scheduledAt")}>{m.scheduled_at_ms === null ? null : formatDateTime(m.scheduled_at_ms)}</Fact>
      <Fact label={t("message.validUntil")}>{m.valid_until_ms === null ? null : formatDateTime(m.valid_until_ms)}</Fact>
      <Fact label={t("message.sender")}>{m.source_addr ?? m.source_raw}</Fact>
      <Fact label={t("message.connection")}>{m.connection}</Fact>
      <Fact label={t("message.route")} testId="detail-route">
        {route}
      </Fact>
      <Fact label={t("message.pinned")} testId="detail-pinned">
        {pinned}
      </Fact>
      <Fact label="registered_delivery">{String(m.registered_delivery)}</Fact>
      <Fact label={t("message.idempotencyKey")}>
        {m.idempotency_key === null ? null : (
          <>
            <Exact value={m.idempotency_key} />
            {m.idempotency_scope !== null && <span className="muted"> ({m.idempotency_scope})</span>}
          </>
        )}
      </Fact>
      <Fact label={t("message.requestHash")}>
        {m.request_hash === null ? null : <code className="wrap">{m.request_hash}</code>}
      </Fact>
    </Facts>
  );
}
