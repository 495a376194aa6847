import type { PGlite } from '@electric-sql/pglite';

/**
 * A raw SQL connection for what Prisma's query engine does not do: multi-statement
 * migration scripts and advisory locks. Prisma serves every other query.
 */
export type SqlRunner = {
  exec(sql: string): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
};

export function pgliteRunner(db: PGlite): SqlRunner {
  return {
    exec: async (sql) => {
      await db.exec(sql);
    },
    query: async <T>(sql: string, params: unknown[] = []) => (await db.query<T>(sql, params)).rows,
    close: async () => {}, // the PGlite handle is owned by the Database
  };
}

export async function postgresRunner(url: string): Promise<SqlRunner> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    exec: async (sql) => {
      await client.query(sql);
    },
    query: async <T>(sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows as T[],
    close: () => client.end(),
  };
}
