/** One SMPP TLV as the engine stores it (`[{"tag": "0x001e", "hex": "..."}]`). */
export interface Tlv {
  readonly tag: string;
  readonly hex: string;
}

/** The TLVs a receipt carries, or null when they are not in the expected shape (then they are shown as stored). */
export function readTlvs(value: unknown): Tlv[] | null {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) return null;
  const out: Tlv[] = [];
  for (const item of value) {
    if (typeof item !== "object" || item === null) return null;
    const { tag, hex } = item as Record<string, unknown>;
    if (typeof tag !== "string" || typeof hex !== "string") return null;
    out.push({ tag, hex });
  }
  return out;
}

/** The SMPP names of the TLVs that matter for receipts; a name is the specification's, not translated. */
const TLV_NAMES: Readonly<Record<string, string>> = {
  "0x001e": "receipted_message_id",
  "0x0427": "message_state",
  "0x0423": "network_error_code",
  "0x0204": "user_message_reference",
  "0x0424": "message_payload",
  "0x0005": "dest_addr_subunit",
};

export function tlvName(tag: string): string | null {
  return TLV_NAMES[tag.toLowerCase()] ?? null;
}

/** The bytes as text when they are printable ASCII (a trailing NUL of a C string aside); else null. */
export function printable(hex: string): string | null {
  if (hex.length === 0 || hex.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(hex)) return null;
  const bytes: number[] = [];
  for (let i = 0; i < hex.length; i += 2) bytes.push(Number.parseInt(hex.slice(i, i + 2), 16));
  while (bytes.length > 0 && bytes[bytes.length - 1] === 0) bytes.pop();
  if (bytes.length === 0 || bytes.some((b) => b < 0x20 || b > 0x7e)) return null;
  return String.fromCharCode(...bytes);
}

/** Hex in groups of two, so that a person can count bytes. */
export function spacedHex(hex: string): string {
  return hex.replace(/(..)(?=.)/g, "$1 ");
}
