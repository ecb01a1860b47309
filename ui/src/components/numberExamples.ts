/** A mobile number of a country as its people write it, and the same with its country code. */
export interface NumberExample {
  readonly national: string;
  readonly international: string;
  /** Its last four digits, as a search by ending takes them. */
  readonly ending: string;
  /** Its first digits and a *, as a search by beginning takes them. */
  readonly beginning: string;
}

/** Numbers of the form each numbering plan gives mobiles (fictional subscribers). */
const EXAMPLES: Readonly<Record<string, readonly [national: string, international: string]>> = {
  AT: ["0664 1234567", "+43 664 1234567"],
  BE: ["0470 12 34 56", "+32 470 12 34 56"],
  CA: ["(506) 234-5678", "+1 506 234 5678"],
  CH: ["078 123 45 67", "+41 78 123 45 67"],
  DE: ["01512 3456789", "+49 1512 3456789"],
  ES: ["612 34 56 78", "+34 612 34 56 78"],
  FR: ["06 12 34 56 00", "+33 6 12 34 56 00"],
  GB: ["07400 123456", "+44 7400 123456"],
  IE: ["085 012 3456", "+353 85 012 3456"],
  IT: ["312 345 6789", "+39 312 345 6789"],
  KZ: ["8 771 000 9998", "+7 771 000 9998"],
  LU: ["628 123 456", "+352 628 123 456"],
  MA: ["0650-123456", "+212 650-123456"],
  NL: ["06 12345678", "+31 6 12345678"],
  PL: ["512 345 678", "+48 512 345 678"],
  PT: ["912 345 678", "+351 912 345 678"],
  RU: ["8 912 345-67-89", "+7 912 345-67-89"],
  UA: ["050 123 4567", "+380 50 123 4567"],
  US: ["(201) 555-0123", "+1 201 555 0123"],
};

/** An example number of `country` for a field's hint; null for a country without one here (or none). */
export function numberExample(country: string | null): NumberExample | null {
  if (country === null) return null;
  const found = EXAMPLES[country.trim().toUpperCase()];
  if (found === undefined) return null;
  const [national, international] = found;
  const digits = international.replace(/\D/g, "");
  return { national, international, ending: digits.slice(-4), beginning: `+${digits.slice(0, 4)}*` };
}
