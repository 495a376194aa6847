/**
 * Copies every table of one PostgreSQL-compatible database into another that holds the same schema (the
 * embedded PGlite into PostgreSQL, for `risk-api db move`), then reads the target back and compares each table's
 * rows and checksum with the source's.
 *
 * Values travel as PostgreSQL's own text form (`col::text` out of the source, COPY's text format into the target,
 * where each column's input function reads it), so every type (bytea, inet, arrays, JSON, timestamps, bigint)
 * arrives exactly as the source's output function wrote it, with no driver in between deciding what a value means.
 * Both sessions use the same output settings, so the text of a row is the same on both sides: a table's checksum
 * is the SHA-256 of its rows as COPY text lines in primary-key order.
 *
 * Memory stays bounded whatever the size: the source is read in key pages (keyset, not OFFSET), each page goes to
 * the target as one COPY before the next is read, and the read-back is one streamed `COPY … TO STDOUT` per table.
 *
 * Tables are copied parents first (foreign keys); rows in primary-key order (a table referring to itself, if one
 * ever does, then gets its parents before their children when ids grow). Sequences are set to the source's.
 */
import { createHash } from 'node:crypto';
import type { CopyRunner, SqlRunner } from './sql.ts';

export type TableCopy = {
  table: string;
  rows: number;
  checksum: string;
  targetRows: number;
  targetChecksum: string;
};
/** Rows of `table` copied (`copying`) or read back and hashed (`verifying`) so far, of `total`. */
export type CopyProgress = (phase: 'copying' | 'verifying', table: string, done: number, total: number) => void;

/** Output settings fixed on both sessions, so a value's text is the same on both. */
const SESSION = [
  "SET TimeZone = 'UTC'",
  "SET DateStyle = 'ISO, MDY'",
  "SET IntervalStyle = 'postgres'",
  'SET extra_float_digits = 1',
  "SET bytea_output = 'hex'",
  // The key literals of a page's WHERE quote by doubling ' only.
  'SET standard_conforming_strings = on',
];
/** The migrations' bookkeeping: the target writes its own when its schema is created. */
const NOT_COPIED = new Set(['_prisma_migrations']);
/** Rows per read: fewer for tables holding bytes (a publication image part is 48 kB, twice that as hex). */
const PAGE_ROWS = 5_000;
const PAGE_ROWS_WITH_BYTES = 200;

type Column = { name: string; type: string };
type Table = { name: string; columns: Column[]; key: string[] };

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

export async function publicTables(sql: SqlRunner): Promise<string[]> {
  const rows = await sql.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY c.relname`,
  );
  return rows.map((r) => r.name);
}

async function describe(sql: SqlRunner, name: string): Promise<Table> {
  const columns = await sql.query<Column>(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type FROM pg_attribute a
      WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
      ORDER BY a.attnum`,
    [`public.${ident(name)}`],
  );
  const key = await sql.query<{ name: string }>(
    `SELECT a.attname AS name FROM pg_index i
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
      WHERE i.indrelid = $1::regclass AND i.indisprimary
      ORDER BY array_position(i.indkey::int2[], a.attnum)`,
    [`public.${ident(name)}`],
  );
  // Without a primary key, every column orders the rows (the same order on both sides).
  return { name, columns, key: key.length ? key.map((k) => k.name) : columns.map((c) => c.name) };
}

/** Tables ordered parents first by their foreign keys (a reference to itself does not order). */
async function parentsFirst(sql: SqlRunner, names: string[]): Promise<string[]> {
  const edges = await sql.query<{ child: string; parent: string }>(
    `SELECT c1.relname AS child, c2.relname AS parent FROM pg_constraint k
       JOIN pg_class c1 ON c1.oid = k.conrelid JOIN pg_class c2 ON c2.oid = k.confrelid
       JOIN pg_namespace n ON n.oid = k.connamespace
      WHERE k.contype = 'f' AND n.nspname = 'public'`,
  );
  const parents = new Map(names.map((n) => [n, new Set<string>()]));
  for (const e of edges) if (e.child !== e.parent) parents.get(e.child)?.add(e.parent);
  const out: string[] = [];
  const placed = new Set<string>();
  while (out.length < names.length) {
    const next = names.find(
      (n) => !placed.has(n) && [...parents.get(n)!].every((p) => placed.has(p) || !parents.has(p)),
    );
    if (!next) throw new Error(`foreign keys form a cycle among ${names.filter((n) => !placed.has(n)).join(', ')}`);
    placed.add(next);
    out.push(next);
  }
  return out;
}

/** COPY's text-format escapes (CopyAttributeOutText), undone to read a key back out of a page's last line. */
const UNESCAPE: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };

/** The values of one line of COPY's text format (null for `\N`). */
export function copyFields(line: string): Array<string | null> {
  return line.split('\t').map((f) => (f === '\\N' ? null : f.replace(/\\(.)/g, (_, c: string) => UNESCAPE[c] ?? c)));
}

/** A value as an SQL literal of its column's type (COPY takes no parameters). */
const literal = (value: string | null, type: string) =>
  value === null ? `NULL::${type}` : `'${value.replaceAll("'", "''")}'::${type}`;

/** The columns read as text, and the key order, qualified: a bare name in ORDER BY would mean the TEXT output. */
function selectList(table: Table): { list: string; order: string } {
  return {
    list: table.columns.map((c) => `t.${ident(c.name)}::text`).join(', '),
    order: table.key.map((k) => `t.${ident(k)}`).join(', '),
  };
}

/**
 * Reads `table` in key pages (keyset: each page starts after the last key of the one before, so every page costs
 * the same), each page as COPY text lines in one buffer: no row objects, and the bytes go to the target as read.
 */
async function* pages(
  sql: CopyRunner,
  table: Table,
  pageRows: number,
): AsyncGenerator<{ lines: Buffer; rows: number }> {
  const { list, order } = selectList(table);
  const types = new Map(table.columns.map((c) => [c.name, c.type]));
  const keyAt = table.key.map((k) => table.columns.findIndex((c) => c.name === k));
  const page = table.columns.some((c) => c.type === 'bytea') ? Math.min(pageRows, PAGE_ROWS_WITH_BYTES) : pageRows;
  let after = '';
  for (;;) {
    const chunks: Buffer[] = [];
    const rows = await sql.copyOut(
      `COPY (SELECT ${list} FROM ${ident(table.name)} t ${after} ORDER BY ${order} LIMIT ${page}) TO STDOUT`,
      (chunk) => chunks.push(chunk),
    );
    if (rows === 0) return;
    const lines = Buffer.concat(chunks);
    yield { lines, rows };
    if (rows < page) return;
    const end = lines.length - 1; // the last line's newline
    const last = copyFields(lines.toString('utf8', lines.lastIndexOf(10, end - 1) + 1, end));
    after = `WHERE (${order}) > (${table.key.map((k, i) => literal(last[keyAt[i]!]!, types.get(k)!)).join(', ')})`;
  }
}

/**
 * The target's rows of `table` read back in key order through one streamed COPY, hashed as they arrive (constant
 * memory); a row is one line, since COPY escapes every newline inside a value.
 */
async function checksum(
  sql: CopyRunner,
  table: Table,
  total: number,
  progress?: CopyProgress,
): Promise<{ rows: number; checksum: string }> {
  const hash = createHash('sha256');
  const { list, order } = selectList(table);
  let lines = 0;
  let reported = 0;
  progress?.('verifying', table.name, 0, total);
  const rows = await sql.copyOut(
    `COPY (SELECT ${list} FROM ${ident(table.name)} t ORDER BY ${order}) TO STDOUT`,
    (chunk) => {
      hash.update(chunk);
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      if (lines - reported >= PAGE_ROWS) {
        reported = lines;
        progress?.('verifying', table.name, lines, total);
      }
    },
  );
  if (lines !== rows) throw new Error(`${table.name}: read back ${lines} lines for ${rows} rows`);
  progress?.('verifying', table.name, rows, total);
  return { rows, checksum: hash.digest('hex') };
}

/** Session settings of a copy; call on both runners before anything else. */
export async function prepareSession(sql: SqlRunner): Promise<void> {
  for (const statement of SESSION) await sql.exec(statement);
}

/**
 * Copies every table of `source` into `target` (same schema; its tables emptied of the rows its migrations
 * seeded), sets the sequences, then reads the target back and compares. Throws when a table differs.
 */
export async function copyTables(
  source: CopyRunner,
  target: CopyRunner,
  progress?: CopyProgress,
  pageRows = PAGE_ROWS,
): Promise<TableCopy[]> {
  const names = (await publicTables(source)).filter((n) => !NOT_COPIED.has(n));
  const order = await parentsFirst(source, names);
  const tables = await Promise.all(order.map((n) => describe(source, n)));
  // Rows the target's migrations seeded (tiers): the source holds its own version of them.
  for (const t of [...tables].reverse()) await target.exec(`DELETE FROM ${ident(t.name)}`);
  const copies: TableCopy[] = [];
  for (const table of tables) {
    const total = Number(
      (await source.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${ident(table.name)}`))[0]!.n,
    );
    const cols = table.columns.map((c) => ident(c.name)).join(', ');
    const hash = createHash('sha256');
    let done = 0;
    progress?.('copying', table.name, 0, total);
    for await (const { lines, rows } of pages(source, table, pageRows)) {
      const copied = await target.copyIn(`COPY ${ident(table.name)} (${cols}) FROM STDIN`, [lines]);
      if (copied !== rows) throw new Error(`${table.name}: COPY took ${copied} of ${rows} rows`);
      hash.update(lines);
      done += rows;
      progress?.('copying', table.name, done, total);
    }
    copies.push({ table: table.name, rows: done, checksum: hash.digest('hex'), targetRows: 0, targetChecksum: '' });
  }
  await copySequences(source, target);
  for (const [i, table] of tables.entries()) {
    const back = await checksum(target, table, copies[i]!.rows, progress);
    copies[i]!.targetRows = back.rows;
    copies[i]!.targetChecksum = back.checksum;
  }
  return copies;
}

async function copySequences(source: SqlRunner, target: SqlRunner): Promise<void> {
  const sequences = await source.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'S'`,
  );
  for (const { name } of sequences) {
    const [state] = await source.query<{ last: string; called: boolean }>(
      `SELECT last_value::text AS last, is_called AS called FROM ${ident(name)}`,
    );
    if (state)
      await target.query(`SELECT setval($1::regclass, $2::bigint, $3)`, [ident(name), state.last, state.called]);
  }
}
