import path from 'node:path';
import { PrismaClient } from '../../generated/prisma/client.ts';
import { migrate, migrationStatus, type MigrationResult, type MigrationStatus } from './migrate.ts';
import { snapshotPglite, type EmbeddedSnapshot } from './backup.ts';
import { pgliteRunner, postgresRunner } from './sql.ts';
import { withFaithfulTextDecoding } from './pglite-text.ts';
import { pgliteSettings } from './pglite-settings.ts';
import { statementsTakeTurns } from './pglite-turns.ts';
import { autovacuumRound } from './pglite-autovacuum.ts';
import { acquireOwnership } from './embedded-lock.ts';
import { statementNames } from './statement-names.ts';
import { secureDataDir, stripGroupAndOtherBits } from './data-dir.ts';
import { timedAdapter, type StatementObserver } from './timed-adapter.ts';
import { meteredAdapter } from './metered-adapter.ts';

export type Database = {
  prisma: PrismaClient;
  kind: 'pglite' | 'postgresql';
  migrate(): Promise<MigrationResult>;
  /** Applied and pending migrations; changes nothing. */
  status(): Promise<MigrationStatus>;
  /** Embedded only: a consistent copy of the database for a backup (backup.ts). PostgreSQL: pg_dump. */
  snapshot?: () => Promise<EmbeddedSnapshot>;
  /** Embedded only: one round of autovacuum's work, which PGlite has no worker for (pglite-autovacuum.ts); the tables it vacuumed or analyzed. */
  autovacuum?: () => Promise<string[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
};

export type DatabaseOptions = {
  databaseUrl?: string | undefined;
  /** Embedded default: PGlite files live in `<dataDir>/pglite`. */
  dataDir: string;
  /** In-memory PGlite (tests): nothing on disk, no ownership lock, DATA_DIR left alone. */
  inMemory?: boolean;
  /** PostgreSQL: run the statements marked `-- prepared` as named prepared statements (statement-names.ts; default true). */
  preparedStatements?: boolean;
  /** Told when DATA_DIR was open to other local users and has been made private (data-dir.ts). */
  warn?: (msg: string, fields: Record<string, unknown>) => void;
  /** Told how long each statement took (the server's metrics). */
  observeStatement?: StatementObserver;
};

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  // Before anything is written: DATA_DIR also holds the pepper and the counter journal on PostgreSQL.
  if (!opts.inMemory) secureDataDir(opts.dataDir, opts.warn ?? (() => {}));
  return opts.databaseUrl
    ? openPostgres(opts.databaseUrl, opts.preparedStatements ?? true, opts.observeStatement)
    : openPglite(opts);
}

// Each backend's driver is imported only when that backend is opened: a process never loads the other
// (docs/decisions/0015-load-only-the-backend-driver-in-use.md).
async function openPostgres(
  url: string,
  preparedStatements: boolean,
  observe: StatementObserver | undefined,
): Promise<Database> {
  const [{ default: pg }, { PrismaPg }] = await Promise.all([import('pg'), import('@prisma/adapter-pg')]);
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // A connection PostgreSQL drops (restart, failover, pg_terminate_backend) reports an 'error' event.
  // pg-pool hands a new connection out before its borrower can listen: when the drop arrives in the
  // same read as the connection's first ReadyForQuery, the event found no listener and killed the
  // process. Every connection keeps this listener for life; the pool and the borrower still see the
  // error (the query fails with it, the broken connection is discarded on release).
  pool.on('connect', (client) => client.on('error', () => {}));
  pool.on('error', () => {}); // an idle connection dropped: pg-pool already removed it
  const adapter = meteredAdapter(
    new PrismaPg(pool, preparedStatements ? { statementNameGenerator: statementNames() } : {}),
  );
  const prisma = new PrismaClient({ adapter: observe ? timedAdapter(adapter, observe) : adapter });
  return {
    prisma,
    kind: 'postgresql',
    async migrate() {
      const runner = await postgresRunner(url);
      try {
        return await migrate(runner);
      } finally {
        await runner.close();
      }
    },
    async status() {
      const runner = await postgresRunner(url);
      try {
        return await migrationStatus(runner);
      } finally {
        await runner.close();
      }
    },
    async ping() {
      await prisma.$queryRawUnsafe('SELECT 1');
    },
    async close() {
      await prisma.$disconnect();
      await pool.end(); // the adapter leaves a pool it was given open
    },
  };
}

async function openPglite(opts: DatabaseOptions): Promise<Database> {
  const release = opts.inMemory ? () => {} : acquireOwnership(opts.dataDir);
  try {
    const [{ PGlite }, { PrismaPGlite }] = await Promise.all([
      import('@electric-sql/pglite'),
      import('pglite-prisma-adapter'),
    ]);
    const settings = pgliteSettings(PGlite.defaultStartParams);
    const pglite = withFaithfulTextDecoding(() =>
      opts.inMemory ? new PGlite(settings) : new PGlite(path.join(opts.dataDir, 'pglite'), settings),
    );
    await pglite.waitReady;
    // PGlite's file system (Emscripten over Node's fs) chmods the files it creates to the mode PostgreSQL asked
    // for, past the process umask: initdb's files came out 0666 and pg_internal.init, rewritten at every start,
    // 0644. Once it is ready nothing it writes is looser than 0600 (checked by test/integration/data-dir.test.ts).
    if (!opts.inMemory) stripGroupAndOtherBits(path.join(opts.dataDir, 'pglite'));
    statementsTakeTurns(pglite);
    const adapter = meteredAdapter(new PrismaPGlite(pglite));
    const prisma = new PrismaClient({
      adapter: opts.observeStatement ? timedAdapter(adapter, opts.observeStatement) : adapter,
    });
    return {
      prisma,
      kind: 'pglite',
      migrate: () => migrate(pgliteRunner(pglite)),
      status: () => migrationStatus(pgliteRunner(pglite)),
      ...(opts.inMemory
        ? {}
        : { snapshot: () => snapshotPglite(pglite, path.join(opts.dataDir, 'pglite'), opts.dataDir) }),
      autovacuum: () => autovacuumRound(pglite),
      async ping() {
        await pglite.query('SELECT 1');
      },
      async close() {
        await prisma.$disconnect();
        await pglite.close();
        release();
      },
    };
  } catch (e) {
    release();
    throw e;
  }
}
