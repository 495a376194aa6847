/**
 * `risk-api db move --to postgresql://…`: the embedded database (stopped) into an empty PostgreSQL database, and the
 * embedded counters (today's quotas, cooldowns, the community signal's windows) into the Redis or Redis Cluster
 * that REDIS_URL / REDIS_CLUSTER_NODES name. The source is only read (its pending migrations applied first, as a
 * start would). The target is migrated, then every table is copied in ONE transaction, read back and compared
 * (rows and SHA-256 per table) before it commits; on any failure the tables the move created are dropped, so the
 * target is empty again (docs/operations.md, "Moving from the embedded default").
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { acquireOwnership, currentOwner } from '../platform/db/embedded-lock.ts';
import { migrate } from '../platform/db/migrate.ts';
import { copyTables, prepareSession, publicTables, type CopyProgress, type TableCopy } from '../platform/db/move.ts';
import { pgliteSettings } from '../platform/db/pglite-settings.ts';
import { withFaithfulTextDecoding } from '../platform/db/pglite-text.ts';
import { pgliteRunner, postgresRunner, type CopyRunner, type SqlRunner } from '../platform/db/sql.ts';
import { createEmbeddedCounterStore } from '../platform/counters/embedded.ts';
import { createRedisCounterStore } from '../platform/counters/redis.ts';
import { describeTarget, redact, redisTargetOf } from '../platform/counters/redis-connection.ts';
import type { CounterStore } from '../platform/counters/types.ts';

export type MoveResult = {
  from: string;
  to: string;
  tables: TableCopy[];
  rows: number;
  counters: null | { to: string; quotas: number; windows: number; entities: number };
};

function refusal(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

async function dropCreated(target: SqlRunner): Promise<void> {
  for (const name of await publicTables(target)) await target.exec(`DROP TABLE IF EXISTS "${name}" CASCADE`);
}

/** Today's counters of the embedded journal, seeded into Redis; refuses when Redis already holds one of them. */
async function moveCounters(dataDir: string, redis: CounterStore): Promise<NonNullable<MoveResult['counters']>> {
  const embedded = await createEmbeddedCounterStore({
    file: path.join(dataDir, 'counters.journal'),
    readOnly: true,
  });
  const { quotas, windows } = embedded.contents();
  await embedded.close();
  for (const q of quotas) {
    if (!(await redis.seedCounter(q.key, q.value, q.expireAtMs)))
      throw refusal(
        'conflict',
        `Redis already holds the counter ${q.key}: it serves another deployment, or an earlier move wrote it (use an empty Redis or another REDIS_KEY_PREFIX)`,
      );
  }
  const now = Date.now();
  for (let i = 0; i < windows.length; i += 500) {
    await redis.recordLookupBatch(
      windows.slice(i, i + 500).map((w) => ({
        entity: w.entity,
        windowStartMs: w.startMs,
        hits: w.hits,
        requesters: w.requesters,
      })),
      now,
    );
  }
  return {
    to: '',
    quotas: quotas.length,
    windows: windows.length,
    entities: new Set(windows.map((w) => w.entity)).size,
  };
}

export async function moveDatabase(
  args: Record<string, unknown>,
  config: Config,
  progress?: CopyProgress,
): Promise<MoveResult> {
  if (config.databaseUrl)
    throw refusal(
      'invalid_request',
      'DATABASE_URL is set: db move copies the embedded database of DATA_DIR; unset DATABASE_URL and give the target with --to',
    );
  const to = args.to;
  if (typeof to !== 'string' || !/^postgres(ql)?:\/\//.test(to))
    throw refusal('invalid_request', 'db move needs --to postgresql://… (an empty database)');
  const pgliteDir = path.join(config.dataDir, 'pglite');
  if (!existsSync(pgliteDir)) throw refusal('not_found', `no embedded database in ${config.dataDir}`);
  const owner = currentOwner(config.dataDir);
  if (owner)
    throw refusal(
      'conflict',
      `process ${owner} is using ${config.dataDir}: stop the server first (db move copies a stopped database)`,
    );

  let target: CopyRunner;
  try {
    target = await postgresRunner(to);
  } catch (e) {
    throw refusal('unavailable', `cannot connect to ${redact(to)}: ${(e as Error).message}`);
  }
  const redisTarget = redisTargetOf(config);
  let redis: CounterStore | null = null;
  const release = acquireOwnership(config.dataDir);
  try {
    const existing = await publicTables(target);
    if (existing.length)
      throw refusal(
        'conflict',
        `${redact(to)} is not empty: it holds ${existing.length} table(s) (${existing.slice(0, 5).join(', ')}${existing.length > 5 ? ', …' : ''}); db move copies into an empty database only`,
      );
    if (redisTarget) redis = await createRedisCounterStore(redisTarget, { prefix: config.redisKeyPrefix });
    const { PGlite } = await import('@electric-sql/pglite');
    // The service's small buffer pool: a copy reads each page once, and a larger pool only grew the process.
    const pglite = withFaithfulTextDecoding(() => new PGlite(pgliteDir, pgliteSettings(PGlite.defaultStartParams)));
    try {
      await pglite.waitReady;
      const source = pgliteRunner(pglite);
      await migrate(source);
      await migrate(target);
      await prepareSession(source);
      await prepareSession(target);
      let tables: TableCopy[];
      let counters: MoveResult['counters'] = null;
      try {
        await target.exec('BEGIN');
        tables = await copyTables(source, target, progress);
        const differ = tables.filter((t) => t.rows !== t.targetRows || t.checksum !== t.targetChecksum);
        if (differ.length)
          throw new Error(
            `the copy differs from the source in ${differ.map((t) => `${t.table} (${t.rows} rows, ${t.targetRows} read back)`).join(', ')}`,
          );
        if (redis && redisTarget)
          counters = { ...(await moveCounters(config.dataDir, redis)), to: describeTarget(redisTarget) };
        await target.exec('COMMIT');
      } catch (e) {
        await target.exec('ROLLBACK').catch(() => {});
        await dropCreated(target).catch(() => {});
        throw e;
      }
      return {
        from: config.dataDir,
        to: redact(to),
        tables,
        rows: tables.reduce((a, t) => a + t.rows, 0),
        counters,
      };
    } finally {
      await pglite.close();
    }
  } finally {
    release();
    await redis?.close();
    await target.close();
  }
}

/**
 * Progress on stderr: one line redrawn on a terminal, a line per tenth of a large table otherwise; each says the
 * time since the move began, so a long move shows it is still going and at what pace.
 */
export function moveProgress(stream: NodeJS.WriteStream, now: () => number = Date.now): CopyProgress {
  const started = now();
  let lastDraw = 0;
  let lastTenth = -1;
  return (phase, table, done, total) => {
    const pct = total ? Math.floor((done / total) * 100) : 100;
    const seconds = Math.round((now() - started) / 1000);
    const text = `${phase} ${table}: ${pct}% (${done.toLocaleString('en-US')} / ${total.toLocaleString('en-US')} rows), ${seconds} s`;
    if (stream.isTTY) {
      if (done === 0 || done === total || now() - lastDraw > 100) {
        stream.write(`\r${text.padEnd(Math.min(100, stream.columns ?? 80) - 1)}`);
        lastDraw = now();
      }
      if (done === total) stream.write('\n');
    } else if (total >= 50_000) {
      const tenth = Math.floor(pct / 10);
      if (done === 0) lastTenth = -1;
      if (tenth > lastTenth) {
        stream.write(`${text}\n`);
        lastTenth = tenth;
      }
    }
  };
}

export function printMove(r: MoveResult): void {
  console.log(`Moved ${r.from} into ${r.to}: ${r.tables.length} tables, ${r.rows.toLocaleString('en-US')} rows.`);
  const width = Math.max(...r.tables.map((t) => t.table.length));
  for (const t of r.tables)
    console.log(
      `  ${t.table.padEnd(width)}  ${String(t.rows).padStart(9)} rows  sha256 ${t.checksum.slice(0, 16)}  ${t.rows === t.targetRows && t.checksum === t.targetChecksum ? 'same on both' : 'DIFFERS'}`,
    );
  if (r.counters)
    console.log(
      `Counters into ${r.counters.to}: ${r.counters.quotas} quota counters and cooldowns, ${r.counters.windows} community windows of ${r.counters.entities} entities.`,
    );
  else
    console.log(
      'Counters: no REDIS_URL or REDIS_CLUSTER_NODES set, so they stay in DATA_DIR/counters.journal (a single process on PostgreSQL keeps using them).',
    );
  console.log(
    'Next: start the service with DATABASE_URL (and REDIS_URL or REDIS_CLUSTER_NODES); keep DATA_DIR/secrets/api-key-pepper, or set API_KEY_PEPPER to its content on every node, or no API key will verify.',
  );
}
