/**
 * Threat-feed parser: text → canonical CIDR entries plus line-numbered errors. No I/O.
 *
 * Incremental: `new FeedParser(format)`, `pushLine(line, lineNo)` per physical line, `result()`.
 * `parseFeedText` (whole string) and `parseFeed` (string or async chunks, e.g. a file stream
 * with an encoding set) are built on it.
 *
 * plain  One value per line (FireHOL netset, Spamhaus DROP, plain IP lists). `#` and `;` start
 *        a comment anywhere on the line ("1.10.16.0/20 ; SBL256894"); blank lines are skipped.
 *        A value is an address, a CIDR (host bits normalised, see network-text.ts) or a range
 *        "a.b.c.d-e.f.g.h" (decomposed into CIDRs). Other text on the line is an error.
 * csv    The first line that is neither blank nor a `#` comment is the header. The address
 *        column is `opts.column` or the first of ip, ip_address, ipaddress, cidr, network,
 *        address (case-insensitive). No such column → one fatal error and nothing else is read.
 *        Each bad row → one error with its line number. Fields may be double-quoted.
 * Duplicates (same canonical CIDR) are collapsed to the first line that listed them; nested
 * blocks are kept as listed. At most `maxErrors` (default 1000) errors are kept; the rest are
 * counted in `errorsOmitted` so a garbage file cannot exhaust memory.
 */
import { findIpColumn, IP_COLUMN_NAMES, splitCsvLine } from './csv.ts';
import { parseNetworkText } from './network-text.ts';

export type FeedFormat = 'plain' | 'csv';
export type FeedEntry = { cidr: string; line: number };
export type FeedError = { line: number; text: string; reason: string };
export type FeedParseOptions = { column?: string; maxErrors?: number };
export type FeedParseResult = {
  entries: FeedEntry[];
  errors: FeedError[];
  /** Physical lines read (a final newline does not start another line). */
  lines: number;
  /** Lines that gave at least one entry (a duplicate's line too): with the errors, the lines that held data. */
  validLines: number;
  /** True when the feed could not be read at all (CSV without header or address column). */
  fatal: boolean;
  errorsOmitted: number;
};

const MAX_ERROR_TEXT = 200;

export class FeedParser {
  private readonly entries = new Map<string, FeedEntry>();
  private readonly errors: FeedError[] = [];
  private errorsOmitted = 0;
  private lines = 0;
  private validLines = 0;
  private fatal = false;
  /** CSV only: index of the address column once the header is read. */
  private column: number | null = null;
  private readonly maxErrors: number;

  constructor(
    private readonly format: FeedFormat,
    private readonly opts: FeedParseOptions = {},
  ) {
    this.maxErrors = opts.maxErrors ?? 1000;
  }

  pushLine(rawLine: string, lineNo: number): void {
    this.lines = Math.max(this.lines, lineNo);
    if (this.fatal) return;
    let line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    if (line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    if (this.format === 'plain') this.plainLine(line, lineNo);
    else this.csvLine(line, lineNo);
  }

  result(): FeedParseResult {
    if (this.format === 'csv' && this.column === null && !this.fatal) {
      this.failFatally(0, '', 'the CSV feed has no header row');
    }
    return {
      entries: [...this.entries.values()],
      errors: this.errors.slice(),
      lines: this.lines,
      validLines: this.validLines,
      fatal: this.fatal,
      errorsOmitted: this.errorsOmitted,
    };
  }

  private plainLine(line: string, lineNo: number): void {
    const cut = line.search(/[#;]/);
    const value = (cut === -1 ? line : line.slice(0, cut)).trim();
    if (value.length === 0) return;
    this.addValue(value, line, lineNo);
  }

  private csvLine(line: string, lineNo: number): void {
    const trimmed = line.trim();
    if (trimmed.length === 0 || trimmed.startsWith('#')) return;
    const fields = splitCsvLine(line);
    if (fields === null) {
      this.addError(lineNo, line, 'unterminated quoted field (fields cannot span lines)');
      return;
    }
    if (this.column === null) {
      const column = findIpColumn(fields, this.opts.column);
      if (column === -1) {
        const expected =
          this.opts.column !== undefined ? `"${this.opts.column}"` : `one of ${IP_COLUMN_NAMES.join(', ')}`;
        this.failFatally(lineNo, line, `the CSV header has no address column (expected ${expected})`);
        return;
      }
      this.column = column;
      return;
    }
    const value = fields[this.column];
    if (value === undefined) {
      this.addError(lineNo, line, `the row has ${fields.length} fields; the address is in field ${this.column + 1}`);
      return;
    }
    this.addValue(value, line, lineNo);
  }

  private addValue(value: string, line: string, lineNo: number): void {
    const parsed = parseNetworkText(value);
    if (!parsed.ok) {
      this.addError(lineNo, line, parsed.reason);
      return;
    }
    this.validLines++;
    for (const cidr of parsed.cidrs) {
      if (!this.entries.has(cidr)) this.entries.set(cidr, { cidr, line: lineNo });
    }
  }

  private addError(line: number, text: string, reason: string): void {
    if (this.errors.length >= this.maxErrors) {
      this.errorsOmitted++;
      return;
    }
    this.errors.push({ line, text: text.slice(0, MAX_ERROR_TEXT), reason });
  }

  private failFatally(line: number, text: string, reason: string): void {
    this.fatal = true;
    this.entries.clear();
    this.validLines = 0;
    this.errors.length = 0;
    this.errorsOmitted = 0;
    this.errors.push({ line, text: text.slice(0, MAX_ERROR_TEXT), reason });
  }
}

/** Whole text at once. A final newline does not count as an extra line. */
export function parseFeedText(text: string, format: FeedFormat, opts?: FeedParseOptions): FeedParseResult {
  const parser = new FeedParser(format, opts);
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  for (const [i, line] of lines.entries()) parser.pushLine(line, i + 1);
  return parser.result();
}

/**
 * A string, or an async iterable of text chunks (chunks are NOT lines: a line may be split
 * across chunks, e.g. `fs.createReadStream(path, 'utf8')`). Bytes are decoded as UTF-8.
 */
export async function parseFeed(
  source: string | AsyncIterable<string | Uint8Array>,
  format: FeedFormat,
  opts?: FeedParseOptions,
): Promise<FeedParseResult> {
  if (typeof source === 'string') return parseFeedText(source, format, opts);
  const parser = new FeedParser(format, opts);
  const decoder = new TextDecoder('utf-8');
  let pending = '';
  let lineNo = 0;
  for await (const chunk of source) {
    pending += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let newline = pending.indexOf('\n');
    let start = 0;
    while (newline !== -1) {
      parser.pushLine(pending.slice(start, newline), ++lineNo);
      start = newline + 1;
      newline = pending.indexOf('\n', start);
    }
    pending = pending.slice(start);
  }
  pending += decoder.decode();
  if (pending.length > 0) parser.pushLine(pending, ++lineNo);
  return parser.result();
}
