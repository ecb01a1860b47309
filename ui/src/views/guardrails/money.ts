/**
 * Amounts as the engine writes them: decimal strings in the office's currency ("12.50", "0.090"),
 * or whole millionths of it (a spend line's `cost`). Shown in the reader's way of writing money
 * ("€12.50", "12,50 €"), with as many decimals as the engine gave (a price of 0.090 is not 0.09).
 */

const MICROS = 1_000_000;

/** The decimals an amount was written with ("12.50" → 2, "3" → 0). */
export function decimalsOf(amount: string): number {
  const m = /\.(\d+)$/.exec(amount.trim());
  return m?.[1]?.length ?? 0;
}

/** An amount in millionths ("0.090" → 90000); null when it is not an amount. */
export function microsOf(amount: string): number | null {
  const m = /^(-)?(\d{1,12})(?:\.(\d{1,6}))?$/.exec(amount.trim());
  if (m === null) return null;
  const whole = Number(m[2]) * MICROS + Number((m[3] ?? "").padEnd(6, "0"));
  return m[1] === undefined ? whole : -whole;
}

/** The fewest decimals (at least `min`, at most 6) that show millionths exactly: 90000 → "0.09". */
function decimalsFor(micros: number, min: number): number {
  let decimals = 6;
  let rest = Math.abs(Math.round(micros));
  while (decimals > min && rest % 10 === 0) {
    rest /= 10;
    decimals -= 1;
  }
  return decimals;
}

/** An amount with `decimals` in `currency`, in `formatTag`'s way; the amount and the code when the currency is not one Intl knows. */
function format(value: number, currency: string, formatTag: string, decimals: number): string {
  const digits = { minimumFractionDigits: decimals, maximumFractionDigits: decimals };
  try {
    return new Intl.NumberFormat(formatTag, { style: "currency", currency, ...digits }).format(value);
  } catch {
    return `${new Intl.NumberFormat(formatTag, digits).format(value)} ${currency}`.trim();
  }
}

/** A decimal amount the engine wrote, as money: "0.090", "EUR" → "€0.090". */
export function formatAmount(amount: string, currency: string, formatTag: string): string {
  const micros = microsOf(amount);
  if (micros === null) return `${amount} ${currency}`.trim();
  return format(micros / MICROS, currency, formatTag, decimalsOf(amount));
}

/** Millionths as money, with at least `minDecimals` (2 by default): 12_500_000 → "€12.50". */
export function formatMicros(micros: number, currency: string, formatTag: string, minDecimals = 2): string {
  return format(micros / MICROS, currency, formatTag, decimalsFor(micros, Math.min(minDecimals, 6)));
}

/**
 * The sum of amounts the engine wrote (the preview's costs of a file checked in chunks), with the
 * most decimals any of them had (at least 2); null when none is an amount.
 */
export function sumAmounts(amounts: readonly (string | null)[], currency: string, formatTag: string): string | null {
  let total = 0;
  let decimals = 2;
  let any = false;
  for (const a of amounts) {
    if (a === null) continue;
    const micros = microsOf(a);
    if (micros === null) continue;
    any = true;
    total += micros;
    decimals = Math.max(decimals, decimalsOf(a));
  }
  return any ? formatMicros(total, currency, formatTag, decimals) : null;
}
