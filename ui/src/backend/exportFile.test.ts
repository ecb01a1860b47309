import { describe, expect, it } from "vitest";
import { CsvRecordCounter, exportFileName } from "./exportFile";

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe("CsvRecordCounter", () => {
  it("counts a line break as a record's end only outside quotes, across chunk boundaries", () => {
    const counter = new CsvRecordCounter();
    const text = 'id,body\n1,"a ""quoted"" word,\nand a second line"\n2,Привет\n3,=SUM(A1)\n';
    // Cut everywhere, even inside a quote pair or a Cyrillic letter.
    for (let i = 0; i < text.length; i += 3) counter.push(bytes(text.slice(i, i + 3)));
    expect(counter.records).toBe(4);
  });
});

describe("exportFileName", () => {
  it("names the file for the local minute it was made", () => {
    expect(exportFileName(new Date(2026, 0, 5, 9, 7, 59))).toBe("messages-20260105-0907.csv");
  });
});
