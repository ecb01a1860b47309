import { describe, expect, it } from "vitest";
import { SseParser, type SseEvent } from "./sse";

function parse(chunks: readonly string[]): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = new SseParser((e) => events.push(e));
  for (const chunk of chunks) parser.push(chunk);
  return events;
}

function parseBytes(chunks: readonly Uint8Array[]): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = new SseParser((e) => events.push(e));
  for (const chunk of chunks) parser.pushBytes(chunk);
  parser.end();
  return events;
}

const simplify = (events: SseEvent[]) => events.map(({ type, data }) => ({ type, data }));

/** What the engine sends: a keep-alive comment, two changes and a resync. */
const STREAM =
  ': keep-alive\n\nevent: change\ndata: {"entity":"message","id":12}\n\n' +
  'event: change\ndata: {"entity":"queue","id":12}\n\nevent: resync\ndata: 3\n\n';
const EXPECTED = [
  { type: "change", data: '{"entity":"message","id":12}' },
  { type: "change", data: '{"entity":"queue","id":12}' },
  { type: "resync", data: "3" },
];

describe("SseParser", () => {
  it("reads the engine's change and resync events and skips comments", () => {
    expect(simplify(parse([STREAM]))).toEqual(EXPECTED);
  });

  it("gives the same events whatever the chunk boundaries (every split into two and three)", () => {
    for (let i = 0; i <= STREAM.length; i++) {
      expect(simplify(parse([STREAM.slice(0, i), STREAM.slice(i)])), `split at ${i}`).toEqual(EXPECTED);
      for (let j = i; j <= STREAM.length; j += 7) {
        const chunks = [STREAM.slice(0, i), STREAM.slice(i, j), STREAM.slice(j)];
        expect(simplify(parse(chunks)), `split at ${i} and ${j}`).toEqual(EXPECTED);
      }
    }
  });

  it("gives the same events one character at a time", () => {
    expect(simplify(parse([...STREAM]))).toEqual(EXPECTED);
  });

  it("accepts CRLF and lone CR line ends, also when CR and LF arrive in different chunks", () => {
    const crlf = STREAM.replaceAll("\n", "\r\n");
    const cr = STREAM.replaceAll("\n", "\r");
    expect(simplify(parse([crlf]))).toEqual(EXPECTED);
    expect(simplify(parse([cr]))).toEqual(EXPECTED);
    for (let i = 0; i <= crlf.length; i++) {
      expect(simplify(parse([crlf.slice(0, i), crlf.slice(i)])), `CRLF split at ${i}`).toEqual(EXPECTED);
    }
  });

  it("does not take a CR, LF pair split over chunks for two line ends (which would end the event early)", () => {
    const events = parse(["data: a\r", "\ndata: b\r", "\n\r", "\n"]);
    expect(simplify(events)).toEqual([{ type: "message", data: "a\nb" }]);
  });

  it("joins several data lines with LF", () => {
    expect(simplify(parse(["data: first\ndata: second\ndata\ndata:  third\n\n"]))).toEqual([
      { type: "message", data: "first\nsecond\n\n third" },
    ]);
  });

  it("removes one space after the colon only, and takes a line without a colon as a field with no value", () => {
    expect(simplify(parse(["event:change\ndata:x\n\n", "event:  spaced\ndata:   y\n\n"]))).toEqual([
      { type: "change", data: "x" },
      { type: " spaced", data: "  y" },
    ]);
  });

  it("ignores comments anywhere, even between the lines of one event", () => {
    expect(simplify(parse([":hello\nevent: change\n: in between\ndata: 1\n:\n\n"]))).toEqual([
      { type: "change", data: "1" },
    ]);
  });

  it("does not dispatch an event without data, and resets its type", () => {
    expect(simplify(parse(["event: resync\n\ndata: plain\n\n"]))).toEqual([{ type: "message", data: "plain" }]);
  });

  it("dispatches an empty data field as an empty string", () => {
    expect(simplify(parse(["event: resync\ndata\n\n"]))).toEqual([{ type: "resync", data: "" }]);
  });

  it("ignores unknown fields, keeps the last id, and reports a numeric retry", () => {
    const retries: number[] = [];
    const events: SseEvent[] = [];
    const parser = new SseParser((e) => events.push(e), (ms) => retries.push(ms));
    parser.push("id: 7\nfoo: bar\nretry: 2500\nretry: soon\ndata: x\n\ndata: y\n\n");
    expect(events).toEqual([
      { type: "message", data: "x", lastEventId: "7" },
      { type: "message", data: "y", lastEventId: "7" },
    ]);
    expect(retries).toEqual([2500]);
  });

  it("discards an event the stream ended before closing", () => {
    const events: SseEvent[] = [];
    const parser = new SseParser((e) => events.push(e));
    parser.push("data: complete\n\ndata: cut off\n");
    parser.end();
    expect(simplify(events)).toEqual([{ type: "message", data: "complete" }]);
  });

  it("strips a byte order mark at the start of the stream only", () => {
    expect(simplify(parse(["\uFEFFdata: a\n\n", "data: \uFEFFb\n\n"]))).toEqual([
      { type: "message", data: "a" },
      { type: "message", data: "\uFEFFb" },
    ]);
  });

  it("decodes UTF-8 split inside a character across byte chunks", () => {
    const bytes = new TextEncoder().encode('event: change\ndata: {"note":"Доставлено ✓"}\n\n');
    for (let i = 0; i <= bytes.length; i++) {
      expect(simplify(parseBytes([bytes.slice(0, i), bytes.slice(i)])), `split at byte ${i}`).toEqual([
        { type: "change", data: '{"note":"Доставлено ✓"}' },
      ]);
    }
  });
});
