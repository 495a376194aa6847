import type { PGlite } from '@electric-sql/pglite';
import { copyIn, copyOut } from './pg-copy.ts';

/**
 * A raw SQL connection for what Prisma's query engine does not do: multi-statement
 * migration scripts and advisory locks. Prisma serves every other query.
 */
export type SqlRunner = {
  exec(sql: string): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
};

/** A connection that also speaks COPY, in its text format: what `db move` reads from and writes to. */
export type CopyRunner = SqlRunner & {
  /** `COPY … FROM STDIN` with lines in COPY's text format; resolves to the rows copied. */
  copyIn(statement: string, lines: readonly Buffer[]): Promise<number>;
  /** `COPY … TO STDOUT`, each chunk to `onData` as it arrives; resolves to the rows copied. */
  copyOut(statement: string, onData: (chunk: Buffer) => void): Promise<number>;
};

/** PGlite has no client stream: its COPY reads and writes a blob in memory instead of STDIN / STDOUT. */
const TO_STDOUT = / TO STDOUT$/;
const FROM_STDIN = / FROM STDIN$/;

export function pgliteRunner(db: PGlite): CopyRunner {
  return {
    copyIn: async (statement, lines) => {
      if (!FROM_STDIN.test(statement)) throw new Error(`not a COPY FROM STDIN: ${statement}`);
      const blob = new Blob(lines.map((l) => new Uint8Array(l)));
      const r = await db.query(statement.replace(FROM_STDIN, " FROM '/dev/blob'"), [], { blob });
      return r.affectedRows ?? 0;
    },
    copyOut: async (statement, onData) => {
      if (!TO_STDOUT.test(statement)) throw new Error(`not a COPY TO STDOUT: ${statement}`);
      const r = await db.query(statement.replace(TO_STDOUT, " TO '/dev/blob'"));
      if (r.blob && r.blob.size > 0) onData(Buffer.from(await r.blob.arrayBuffer()));
      return r.affectedRows ?? 0;
    },
    exec: async (sql) => {
      await db.exec(sql);
    },
    query: async <T>(sql: string, params: unknown[] = []) => (await db.query<T>(sql, params)).rows,
    close: async () => {}, // the PGlite handle is owned by the Database
  };
}

export async function postgresRunner(url: string): Promise<CopyRunner> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    copyIn: (statement, lines) => copyIn(client, statement, lines),
    copyOut: (statement, onData) => copyOut(client, statement, onData),
    exec: async (sql) => {
      await client.query(sql);
    },
    query: async <T>(sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows as T[],
    close: () => client.end(),
  };
}
