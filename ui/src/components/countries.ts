/**
 * The regions the phone numbering data knows (ISO 3166 alpha-2, and the few codes it adds for
 * places with a numbering plan of their own: AC Ascension, TA Tristan da Cunha, XK Kosovo). The
 * engine reads national numbers in one of these; any other is refused as `unknown_country`.
 */
export const PHONE_REGIONS: readonly string[] = (
  "AC AD AE AF AG AI AL AM AO AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BW BY BZ " +
  "CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO " +
  "FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GT GU GW GY HK HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO " +
  "JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ " +
  "MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PR PS PT PW PY QA RE " +
  "RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TA TC TD TG TH TJ TK TL TM TN TO TR " +
  "TT TV TW TZ UA UG US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW"
).split(" ");

const KNOWN: ReadonlySet<string> = new Set(PHONE_REGIONS);

/** Whether the numbering data knows this region code (any case, spaces around ignored). */
export function isPhoneRegion(code: string): boolean {
  return KNOWN.has(code.trim().toUpperCase());
}

/** A country as the picker lists it: its code and its name in the reader's language. */
export interface Country {
  readonly code: string;
  readonly name: string;
}

/** Every region, named in `formatTag`'s language and sorted in its alphabetical order. */
export function countriesIn(formatTag: string): Country[] {
  let names: Intl.DisplayNames | null = null;
  try {
    names = new Intl.DisplayNames([formatTag], { type: "region" });
  } catch {
    names = null;
  }
  const collator = new Intl.Collator(formatTag);
  return PHONE_REGIONS.map((code) => ({ code, name: names?.of(code) ?? code })).sort((a, b) =>
    collator.compare(a.name, b.name),
  );
}

/**
 * The country the browser's preferred languages suggest: the region of the first tag that has
 * one the numbering data knows ("fr-FR" → FR, "en-GB" → GB); null when none names one.
 */
export function suggestedCountry(languages: readonly string[]): string | null {
  for (const tag of languages) {
    let region: string | undefined;
    try {
      region = new Intl.Locale(tag.replace("_", "-")).region;
    } catch {
      region = undefined;
    }
    if (region !== undefined && isPhoneRegion(region)) return region.toUpperCase();
  }
  return null;
}

/** The browser's preferred languages (none outside a browser). */
export function browserLanguages(): readonly string[] {
  if (typeof navigator === "undefined") return [];
  if (navigator.languages !== undefined && navigator.languages.length > 0) return navigator.languages;
  return navigator.language ? [navigator.language] : [];
}
