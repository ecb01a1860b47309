/**
 * A parser for the server-sent events format (WHATWG HTML, "Parsing an event stream"), fed in
 * chunks as they arrive. EventSource would do this for us, but it cannot tell a refused session
 * (401) from a dropped connection, so the stream is read with fetch and parsed here.
 *
 * Lines end in CRLF, LF or CR, and a chunk may end anywhere: inside a line, between CR and LF,
 * or (for bytes) inside a UTF-8 sequence. A blank line dispatches the event gathered so far;
 * lines starting with `:` are comments; `data` lines are joined with LF.
 */

export interface SseEvent {
  /** The `event` field; "message" when there was none. */
  readonly type: string;
  readonly data: string;
  /** The last `id` seen on the stream so far (empty when none). */
  readonly lastEventId: string;
}

const LF = 0x0a;
const CR = 0x0d;

export class SseParser {
  readonly #onEvent: (event: SseEvent) => void;
  readonly #onRetry: ((ms: number) => void) | undefined;
  readonly #decoder = new TextDecoder("utf-8");
  /** Text after the last line end, waiting for the rest of its line. */
  #pending = "";
  /** The previous chunk ended with CR: an LF opening the next chunk belongs to that line end. */
  #afterCr = false;
  #started = false;
  #type = "";
  #data = "";
  #lastEventId = "";

  constructor(onEvent: (event: SseEvent) => void, onRetry?: (ms: number) => void) {
    this.#onEvent = onEvent;
    this.#onRetry = onRetry;
  }

  /** Feeds raw bytes from the response body. */
  pushBytes(chunk: Uint8Array): void {
    this.push(this.#decoder.decode(chunk, { stream: true }));
  }

  /** Feeds decoded text. */
  push(text: string): void {
    if (text === "") return;
    if (!this.#started) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.#afterCr && text.charCodeAt(0) === LF) text = text.slice(1);
    this.#afterCr = false;

    const buffer = this.#pending + text;
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const c = buffer.charCodeAt(i);
      if (c !== LF && c !== CR) continue;
      this.#line(buffer.slice(start, i));
      if (c === CR) {
        if (i + 1 === buffer.length) this.#afterCr = true;
        else if (buffer.charCodeAt(i + 1) === LF) i++;
      }
      start = i + 1;
    }
    this.#pending = buffer.slice(start);
  }

  /** The stream ended: an event not closed by a blank line is discarded, as the format requires. */
  end(): void {
    this.push(this.#decoder.decode());
    this.#pending = "";
    this.#afterCr = false;
    this.#type = "";
    this.#data = "";
  }

  #line(line: string): void {
    if (line === "") {
      this.#dispatch();
      return;
    }
    if (line.charCodeAt(0) === 0x3a /* : */) return; // a comment (keep-alive)
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "event":
        this.#type = value;
        break;
      case "data":
        this.#data += `${value}\n`;
        break;
      case "id":
        if (!value.includes("\0")) this.#lastEventId = value;
        break;
      case "retry":
        if (/^\d+$/.test(value)) this.#onRetry?.(Number(value));
        break;
      default:
        // Unknown fields are ignored.
        break;
    }
  }

  #dispatch(): void {
    const type = this.#type === "" ? "message" : this.#type;
    const data = this.#data;
    this.#type = "";
    this.#data = "";
    if (data === "") return; // no data line: nothing to dispatch
    this.#onEvent({ type, data: data.slice(0, -1), lastEventId: this.#lastEventId });
  }
}
