import { describe, expect, it } from "vitest";
import { chunkKey, chunks, contentHash, fnv1a64, parseCsv, readImportFile, rejectedRowsCsv } from "./csv";
import type { Template } from "../bindings/Template";

const fields = (text: string) => {
  const parsed = parseCsv(text);
  if (!("records" in parsed)) throw new Error("unexpected unclosed quote");
  return parsed.records.map((r) => r.fields);
};

describe("parseCsv", () => {
  it("splits plain fields and records, with or without a final line break", () => {
    expect(fields("a,b\n1,2\n")).toEqual([["a", "b"], ["1", "2"]]);
    expect(fields("a,b\n1,2")).toEqual([["a", "b"], ["1", "2"]]);
    expect(fields("a,,c\n")).toEqual([["a", "", "c"]]);
  });

  it("reads CRLF line breaks like LF", () => {
    expect(fields("a,b\r\n1,2\r\n")).toEqual([["a", "b"], ["1", "2"]]);
  });

  it("keeps commas, line breaks and escaped quotes inside quoted fields", () => {
    expect(fields('a,b\n"x, y","line 1\r\nline 2"\n"say ""hi""",""\n')).toEqual([
      ["a", "b"],
      ["x, y", "line 1\r\nline 2"],
      ['say "hi"', ""],
    ]);
  });

  it("numbers records by the line they start on", () => {
    const parsed = parseCsv('h\n"multi\nline"\nlast\n');
    expect("records" in parsed && parsed.records.map((r) => r.line)).toEqual([1, 2, 4]);
  });

  it("drops a byte order mark", () => {
    expect(fields("\uFEFFdestination,text\n")).toEqual([["destination", "text"]]);
  });

  it("reports an unclosed quote with the line it opened on", () => {
    expect(parseCsv('a\n"open\nnever closed\n')).toEqual({ unclosedQuoteLine: 2 });
  });
});

describe("rejectedRowsCsv", () => {
  it("gives each rejected record as written, after its line and the reason, and can be imported again once corrected", () => {
    const read = readImportFile('destination,text\r\nbad,"Hello, ""you""\nthere"\r\n+33612345600,ok\r\n');
    if (!read.ok) throw new Error("unreadable");
    const bad = read.rows[0]!;
    expect(bad.raw).toBe('bad,"Hello, ""you""\nthere"');
    const csv = rejectedRowsCsv(read.header, [{ line: bad.line, raw: bad.raw, reason: 'destination: not a "number", really' }]);
    expect(csv).toBe('line,reason,destination,text\r\n2,"destination: not a ""number"", really",bad,"Hello, ""you""\nthere"\r\n');
    const again = readImportFile(csv);
    expect(again.ok && again.rows.map((r) => r.message)).toEqual([{ destination: "bad", text: 'Hello, "you"\nthere' }]);
  });
});

describe("readImportFile", () => {
  it("reads rows into messages, with optional columns in any order and case", () => {
    const read = readImportFile(
      "\uFEFFText, Destination ,kind,priority,client_ref\r\nHello,+33612345600,OTP,1,ref-1\r\n\r\nBye,+33612345601,,,\r\n",
    );
    expect(read).toEqual({
      ok: true,
      header: "Text, Destination ,kind,priority,client_ref",
      rows: [
        {
          line: 2,
          message: { destination: "+33612345600", text: "Hello", kind: "otp", priority: 1, client_ref: "ref-1" },
          raw: "Hello,+33612345600,OTP,1,ref-1",
          errors: [],
        },
        { line: 4, message: { destination: "+33612345601", text: "Bye" }, raw: "Bye,+33612345601,,,", errors: [] },
      ],
    });
  });

  it("skips empty lines anywhere", () => {
    const read = readImportFile("\n\ndestination,text\n\n+1,a\n\n");
    expect(read.ok && read.rows.map((r) => r.line)).toEqual([5]);
  });

  it("refuses a header without a required column", () => {
    expect(readImportFile("destination,kind\n+1,otp\n")).toEqual({
      ok: false,
      problem: { code: "missing_column", column: "text" },
    });
  });

  it("refuses an unknown column, naming it as written", () => {
    expect(readImportFile("destination,text,Colour\n+1,a,red\n")).toEqual({
      ok: false,
      problem: { code: "unknown_column", column: "Colour" },
    });
  });

  it("refuses an empty file, a repeated column, and a row with the wrong number of values", () => {
    expect(readImportFile("\uFEFF\r\n")).toEqual({ ok: false, problem: { code: "empty" } });
    expect(readImportFile("text,destination,text\n")).toMatchObject({ problem: { code: "duplicate_column" } });
    expect(readImportFile("destination,text\n+1,a,b\n")).toEqual({
      ok: false,
      problem: { code: "field_count", line: 2, found: 3, expected: 2 },
    });
  });

  it("marks a row whose kind or priority cannot be read, leaving them out of the message", () => {
    const read = readImportFile("destination,text,kind,priority\n+1,a,promo,high\n");
    expect(read.ok && read.rows[0]).toMatchObject({
      message: { destination: "+1", text: "a" },
      errors: [
        { field: "kind", code: "invalid", params: { value: "promo" } },
        { field: "priority", code: "invalid_type", params: { value: "high" } },
      ],
    });
  });
});

describe("chunks and keys", () => {
  it("splits into chunks of at most the size", () => {
    expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunks([], 2)).toEqual([]);
  });

  it("hashes content stably, SHA-256 when available", async () => {
    const a = await contentHash("destination,text\n+1,a\n");
    expect(a).toMatch(/^sha256-[0-9a-f]{64}$/);
    expect(await contentHash("destination,text\n+1,a\n")).toBe(a);
    expect(await contentHash("destination,text\n+1,b\n")).not.toBe(a);
    expect(chunkKey(a, 2)).toBe(`csv-${a}-2`);
  });

  it("has an FNV-1a fallback with the reference values", () => {
    expect(fnv1a64(new Uint8Array())).toBe("cbf29ce484222325");
    expect(fnv1a64(new TextEncoder().encode("a"))).toBe("af63dc4c8601ec8c");
  });
});

describe("readImportFile with a template", () => {
  const TEMPLATE: Template = {
    id: 3,
    name: "RDV",
    text: "Bonjour {Prénom}, RDV le {date} à {heure}. {Prénom}, à bientôt",
    placeholders: ["Prénom", "date", "heure"],
    created_at_ms: 0,
    created_by: "Olga",
  };

  it("sends each row with the template, each placeholder's value from the row's column of that name in any case, and needs no text column", () => {
    const read = readImportFile(
      "destination,prénom,DATE,heure,kind,other\r\n+33612345600, Anna ,12/03,10:00,otp,x\r\n+33612345601,Léo,13/03,11:30,,\r\n",
      TEMPLATE,
    );
    expect(read.ok && read.rows.map((r) => [r.line, r.message, r.errors])).toEqual([
      [2, { destination: "+33612345600", template: "RDV", values: { Prénom: "Anna", date: "12/03", heure: "10:00" }, kind: "otp" }, []],
      [3, { destination: "+33612345601", template: "RDV", values: { Prénom: "Léo", date: "13/03", heure: "11:30" } }, []],
    ]);
  });

  it("leaves out a value whose column is missing or whose cell is empty: the engine names the placeholder", () => {
    const read = readImportFile("destination,prénom,date\n+33612345600,Anna,\n+33612345601,,\n", TEMPLATE);
    expect(read.ok && read.rows.map((r) => [r.message.values, r.errors])).toEqual([
      [{ Prénom: "Anna" }, []],
      [{}, []],
    ]);
  });

  it("sends no text beside the template, and still needs a destination", () => {
    const read = readImportFile("destination,text,Prénom,date,heure\n+1,ignored,A,B,C\n", TEMPLATE);
    expect(read.ok && read.rows[0]?.message).toEqual({ destination: "+1", template: "RDV", values: { Prénom: "A", date: "B", heure: "C" } });
    expect(readImportFile("phone,Prénom\n+1,A\n", TEMPLATE)).toEqual({
      ok: false,
      problem: { code: "missing_column", column: "destination" },
    });
  });
});
