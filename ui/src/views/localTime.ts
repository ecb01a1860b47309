/** A `datetime-local` value ("2026-12-01T09:30"), in this computer's zone, as RFC 3339; null when empty or unreadable. */
export function localToRfc3339(value: string): string | null {
  if (value.trim() === "") return null;
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** This computer's time zone, as people name it ("Europe/Paris"), for a field that reads times in it. */
export function localZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
