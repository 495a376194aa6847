import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { createApp, type App } from '../../src/app.ts';
import { createLogger } from '../../src/platform/log.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { publish } from '../../src/domain/publishing/index.ts';
import { createApiKey } from '../../src/domain/access/keys.ts';
import { usingPostgres } from '../helpers/backend.ts';
import { cli, MODELS, readAll, seedEveryTable } from '../helpers/seed-every-table.ts';

/**
 * `risk-api db move`: an embedded database seeded through the service (score calls, which count today's quota
 * and the community signal; a rating and a report with an Idempotency-Key; a publication with its image) and
 * with a row in every other table, moved into an empty PostgreSQL database and the pass's Redis. Every table reads
 * back the same; a key made before the move scores after it on PostgreSQL + Redis, its count of the day carried
 * over; a second move into the now non-empty target is refused and changes nothing. Needs a PostgreSQL server:
 * runs in the PostgreSQL + Redis pass.
 */
describe.runIf(usingPostgres && process.env.REDIS_URL)('risk-api db move (embedded → PostgreSQL + Redis)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'risk-api-move-'));
  // The body is collected in the embedded pass too (runIf skips only the tests): no DATABASE_URL there.
  const admin = process.env.DATABASE_URL ?? 'postgresql://127.0.0.1/unused';
  const name = `risk_move_${process.pid}_${randomBytes(4).toString('hex')}`;
  const target = Object.assign(new URL(admin), { pathname: `/${name}` }).toString();
  // A second empty database, for a move that must be undone.
  const undoneName = `${name}_undone`;
  const undone = Object.assign(new URL(admin), { pathname: `/${undoneName}` }).toString();
  const redisEnv = { REDIS_URL: process.env.REDIS_URL!, REDIS_KEY_PREFIX: `t${randomBytes(6).toString('hex')}` };
  const base = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', PORT: '0', WATCH_DETECTION_MS: '0', PUBLISH_INTERVAL_MS: '0' };
  let secret = '';
  let usedBefore = 0;
  let moved: App | null = null;

  const sql = async (text: string, on = admin) => {
    const c = new pg.Client({ connectionString: on });
    await c.connect();
    try {
      return (await c.query(text)).rows;
    } finally {
      await c.end();
    }
  };
  const tablesOf = async (url: string) =>
    (await sql(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`, url)).map((r) => r.tablename as string);

  beforeAll(async () => {
    await sql(`CREATE DATABASE "${name}"`);
    await sql(`CREATE DATABASE "${undoneName}"`);
    const app = await createApp(loadConfig(base), { log: createLogger('silent') });
    try {
      await seedEveryTable(app);
      const made = await createApiKey(app.db.prisma, app.pepper, {
        workspace: 'moving-ws',
        name: 'before the move',
        tier: 'developer',
      });
      secret = made.secret;
      const url = await app.start(0, '127.0.0.1');
      const call = async (route: string, body: unknown, headers: Record<string, string> = {}) => {
        const r = await fetch(`${url}${route}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': secret, ...headers },
          body: JSON.stringify(body),
        });
        return { status: r.status, body: (await r.json()) as any };
      };
      for (const ip of ['8.8.8.8', '1.1.1.1', '9.9.9.9', '8.8.8.8']) {
        const r = await call('/risk_api/score/', { ip });
        expect(r.status).toBe(200);
        usedBefore = r.body.quota.used_today;
      }
      expect((await call('/risk_api/rate/', { ip: '203.0.113.9', rating: -1, note: 'moved' })).status).toBe(201);
      const report = {
        kind: 'domain',
        key: 'moved.example',
        outcome_code: 'spam',
        related_subjects: [{ kind: 'ipaddress', key: '203.0.113.9', role: 'source_ip' }],
      };
      expect((await call('/risk_api/report/', report, { 'idempotency-key': 'move-1' })).status).toBe(201);
      await publish(app.db.prisma, app.services.network);
      await app.verifier.flushLastUsed();
    } finally {
      await app.close();
    }
  });

  afterAll(async () => {
    await moved?.close();
    await sql(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await sql(`DROP DATABASE IF EXISTS "${undoneName}" WITH (FORCE)`);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses while the server runs on the data directory (it copies a stopped database), touching nothing', async () => {
    const running = await createApp(loadConfig(base), { log: createLogger('silent') });
    try {
      await running.start(0, '127.0.0.1');
      const r = await cli({ ...base, ...redisEnv }, 'db', 'move', '--to', target);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/process \d+ is using .*: stop the server first/);
    } finally {
      await running.close();
    }
    expect(await tablesOf(target)).toEqual([]);
  });

  it('copies every table, says rows and checksum per table, and the counters of today', async () => {
    const r = await cli({ ...base, ...redisEnv }, 'db', 'move', '--to', target, '--json');
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.tables.map((t: { table: string }) => t.table).sort()).toEqual([...MODELS].sort());
    for (const t of result.tables) {
      expect(t.targetRows, t.table).toBe(t.rows);
      expect(t.targetChecksum, t.table).toBe(t.checksum);
      expect(t.rows, `${t.table} has rows to move`).toBeGreaterThan(0);
    }
    expect(result.counters).toMatchObject({ to: 'redis://127.0.0.1:6379' });
    expect(result.counters.quotas).toBeGreaterThanOrEqual(2); // the workspace's quota and the key's own count
    expect(result.counters.windows).toBeGreaterThan(0);

    const source = await openDatabase({ dataDir });
    const copy = await openDatabase({ databaseUrl: target, dataDir });
    try {
      expect(await readAll(copy.prisma)).toEqual(await readAll(source.prisma));
      expect((await copy.status()).pending).toEqual([]);
    } finally {
      await copy.close();
      await source.close();
    }
  });

  it('refuses a target that is not empty, and leaves it as it was', async () => {
    const copy = await openDatabase({ databaseUrl: target, dataDir });
    try {
      const before = await readAll(copy.prisma);
      const r = await cli({ ...base, ...redisEnv }, 'db', 'move', '--to', target);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/is not empty: it holds \d+ table\(s\)/);
      expect(r.stderr).not.toContain(new URL(admin).password || '\u0000');
      expect(await readAll(copy.prisma)).toEqual(before);
    } finally {
      await copy.close();
    }
  });

  it('undoes a move that fails after the copy (Redis already holds its counters): the target is empty again', async () => {
    // The same Redis prefix as the first move, whose counters are there now: the counters step refuses, after every
    // table was copied and checked, and the tables the move created are dropped.
    const r = await cli({ ...base, ...redisEnv }, 'db', 'move', '--to', undone);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Redis already holds the counter/);
    expect(await tablesOf(undone)).toEqual([]);
  });

  it('a key made before the move scores after it on PostgreSQL + Redis, its count of the day carried on', async () => {
    moved = await createApp(loadConfig({ ...base, ...redisEnv, DATABASE_URL: target }), {
      log: createLogger('silent'),
    });
    const url = await moved.start(0, '127.0.0.1');
    const r = await fetch(`${url}/risk_api/score/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': secret },
      body: JSON.stringify({ ip: '8.8.8.8' }),
    });
    const body = (await r.json()) as any;
    expect(r.status, JSON.stringify(body)).toBe(200);
    expect(body.quota.used_today).toBe(usedBefore + 1);
  });
});
