/** `messages-YYYYMMDD-HHMM.csv`, in the user's local time: the name an exported file is offered under. */
export function exportFileName(now: Date): string {
  const two = (n: number): string => String(n).padStart(2, "0");
  const day = `${now.getFullYear()}${two(now.getMonth() + 1)}${two(now.getDate())}`;
  return `messages-${day}-${two(now.getHours())}${two(now.getMinutes())}.csv`;
}

const QUOTE = 0x22;
const NEWLINE = 0x0a;

/**
 * Counts the records of a CSV stream as it arrives, chunk by chunk: a line break ends a record
 * only outside quotes (a text with line breaks is one quoted cell). Bytes are enough: in UTF-8 no
 * byte of a longer character looks like a quote or a line break.
 */
export class CsvRecordCounter {
  #quoted = false;
  #records = 0;

  /** Records ended so far, the header line included. */
  get records(): number {
    return this.#records;
  }

  push(chunk: Uint8Array): void {
    for (const byte of chunk) {
      // A doubled quote inside a quoted cell toggles twice: it changes nothing, as it should.
      if (byte === QUOTE) this.#quoted = !this.#quoted;
      else if (byte === NEWLINE && !this.#quoted) this.#records += 1;
    }
  }
}

/** Offers `blob` to the user as a download named `name` (a browser's way to save a file). */
export function downloadBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has taken the data by then; the URL only holds on to memory.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** How many records a CSV text holds, its header line included (a last line without a line break counts too). */
export function csvRecords(text: string): number {
  const counter = new CsvRecordCounter();
  counter.push(new TextEncoder().encode(text));
  return counter.records + (text === "" || text.endsWith("\n") ? 0 : 1);
}

/**
 * Saves a CSV text the engine made, as it made it, in a file named `name`: a download, the way a
 * browser saves a file.
 */
export function saveCsvText(text: string, name: string): void {
  downloadBlob(new Blob([text], { type: "text/csv;charset=utf-8" }), name);
}
