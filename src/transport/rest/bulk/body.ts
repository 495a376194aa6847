import type { IncomingMessage } from 'node:http';
import { AppError } from '../../../errors.ts';
import { BULK_MAX_BYTES, BULK_MAX_LINES, CSV_COLUMNS } from '../../operations/report-bulk.ts';
import { jsonObject, readBody } from '../../http/body.ts';
import { parseCsv } from './csv.ts';

export type BulkFormat = 'ndjson' | 'csv';
/** One report of the body as read: its line, and its fields in wire names (or the AppError of a line that does not read). */
export type RawLine = { line: number; fields: () => Record<string, unknown> };

export function bulkFormat(type: string | undefined): BulkFormat {
  if (type && /^application\/x-ndjson\s*(;|$)/i.test(type)) return 'ndjson';
  if (type && /^text\/csv\s*(;|$)/i.test(type)) return 'csv';
  throw new AppError(
    'unsupported_media_type',
    'Send the reports as NDJSON (Content-Type: application/x-ndjson) or CSV (Content-Type: text/csv).',
  );
}

/**
 * Counts records as the bytes arrive: a line break ends one when the line held anything but blanks (in CSV,
 * only outside quotes: a quoted cell may span lines). Refuses the body at the first record past the bound,
 * with the CSV header not counted, so a body of 5 MB of short lines is stopped without being parsed.
 */
function recordBound(format: BulkFormat): (chunk: Buffer) => void {
  const limit = BULK_MAX_LINES + (format === 'csv' ? 1 : 0);
  let records = 0;
  let content = false;
  let quoted = false;
  return (chunk) => {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (b === 0x22 && format === 'csv') quoted = !quoted;
      if (b === 0x0a && !quoted) {
        if (content) records++;
        content = false;
      } else if (b !== 0x20 && b !== 0x09 && b !== 0x0d) {
        // a record's first content past the bound: refused before it is even read whole
        if (!content && records >= limit) throw tooManyLines();
        content = true;
      }
    }
  };
}

function tooManyLines() {
  return new AppError(
    'payload_too_large',
    `The request body holds more than ${BULK_MAX_LINES} reports (lines); send at most ${BULK_MAX_LINES} per request.`,
  );
}

/** The body's reports, each with the line it starts on (1-based; a CSV's header is line 1). */
export async function readBulkBody(req: IncomingMessage, format: BulkFormat): Promise<RawLine[]> {
  const text = (await readBody(req, BULK_MAX_BYTES, recordBound(format))).toString('utf8').replace(/^\uFEFF/, '');
  const lines = format === 'ndjson' ? ndjsonLines(text) : csvLines(text);
  // The streaming count is exact for NDJSON and well-formed CSV; a CSV with stray quotes is held to the bound here.
  if (lines.length > BULK_MAX_LINES) throw tooManyLines();
  if (lines.length === 0) {
    throw new AppError('invalid_request', 'The request body holds no reports.', [
      { field: '(body)', message: `must hold 1-${BULK_MAX_LINES} reports` },
    ]);
  }
  return lines;
}

function ndjsonLines(text: string): RawLine[] {
  const lines: RawLine[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() !== '') lines.push({ line: i + 1, fields: () => jsonObject(line, 'This line') });
  });
  return lines;
}

function csvLines(text: string): RawLine[] {
  const [header, ...records] = parseCsv(text);
  if (!header) return [];
  const columns = header.problem !== undefined ? null : header.cells.map((c) => c.trim().toLowerCase());
  const unknown = columns?.filter((c) => !CSV_COLUMNS.includes(c)) ?? [];
  const repeated = columns?.filter((c, i) => columns.indexOf(c) !== i) ?? [];
  if (!columns || unknown.length || repeated.length) {
    const details = [
      ...(header.problem !== undefined ? [{ field: '(header)', message: header.problem }] : []),
      ...unknown.map((c) => ({ field: '(header)', message: `names an unknown column ${JSON.stringify(c)}` })),
      ...[...new Set(repeated)].map((c) => ({
        field: '(header)',
        message: `names the column ${JSON.stringify(c)} more than once`,
      })),
    ];
    throw new AppError(
      'invalid_request',
      `The CSV header line must name columns among: ${CSV_COLUMNS.join(', ')}.`,
      details,
    );
  }
  return records.map((r) => ({
    line: r.line,
    fields: () => {
      if (r.problem !== undefined)
        throw new AppError('invalid_request', `This line is not valid CSV: it ${r.problem}.`, [
          { field: '(line)', message: r.problem },
        ]);
      if (r.cells.length !== columns.length) {
        const message = `has ${r.cells.length} cells where the header names ${columns.length} columns`;
        throw new AppError('invalid_request', `This line ${message}.`, [{ field: '(line)', message }]);
      }
      return csvFields(columns, r.cells);
    },
  }));
}

/**
 * A CSV record as the fields a JSON line would carry: an empty cell is an absent field (its default applies),
 * tags are separated by ";", related_subjects is a JSON array of { kind, key, role } (as the export writes it:
 * keys such as IPv6 addresses and URLs hold ":" and ";", so no plainer separator is safe).
 */
function csvFields(columns: readonly string[], cells: readonly string[]): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  columns.forEach((column, i) => {
    const cell = cells[i]!;
    if (cell === '') return;
    if (column === 'tags') fields.tags = cell.split(';');
    else if (column === 'related_subjects') {
      try {
        fields.related_subjects = JSON.parse(cell);
      } catch {
        throw new AppError('invalid_request', 'The report on this line is invalid: check related_subjects.', [
          { field: 'related_subjects', message: 'must be a JSON array of objects with kind, key and role' },
        ]);
      }
    } else fields[column] = cell;
  });
  return fields;
}
