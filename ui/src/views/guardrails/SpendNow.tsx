import type { SpendNow as SpendNowData } from "../../bindings/SpendNow";
import { useI18n } from "../../i18n/context";
import { formatAmount, microsOf } from "./money";

/**
 * Today's and this month's spend (the messages' estimated costs), each against its limit: "€12.50
 * of €100.00", or "no limit". Shown on the dashboard and on the Guardrails screen alike.
 */
export function SpendNowList({ spend, testId = "spend-now" }: { spend: SpendNowData; testId?: string }) {
  const { t } = useI18n();
  return (
    <dl className="count-list" data-testid={testId} data-currency={spend.currency}>
      <SpendRow label={t("guardrails.spend.today")} spent={spend.today} limit={spend.day_limit} currency={spend.currency} period="day" />
      <SpendRow label={t("guardrails.spend.month")} spent={spend.month} limit={spend.month_limit} currency={spend.currency} period="month" />
    </dl>
  );
}

function SpendRow({
  label,
  spent,
  limit,
  currency,
  period,
}: {
  label: string;
  spent: string;
  limit: string | null;
  currency: string;
  period: "day" | "month";
}) {
  const { t, formatTag } = useI18n();
  const money = (amount: string): string => formatAmount(amount, currency, formatTag);
  const [spentMicros, limitMicros] = [microsOf(spent), limit === null ? null : microsOf(limit)];
  const reached = spentMicros !== null && limitMicros !== null && limitMicros > 0 && spentMicros >= limitMicros;
  return (
    <div className="count-row" data-testid={`spend-${period}`} data-spent={spent} data-limit={limit ?? ""} data-reached={reached}>
      <dt>{label}</dt>
      <dd>
        {limit === null ? (
          <>
            <span className="count">{money(spent)}</span> <span className="muted">· {t("guardrails.spend.noLimit")}</span>
          </>
        ) : (
          <span className={reached ? "count spend-reached" : "count"}>
            {t("guardrails.spend.ofLimit", { spent: money(spent), limit: money(limit) })}
          </span>
        )}
      </dd>
    </div>
  );
}
