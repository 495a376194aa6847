import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { freshEnvironment, backendName, usingPostgres, type TestEnv } from '../helpers/backend.ts';
import { loadConfig } from '../../src/config.ts';
import { createApp, type App } from '../../src/app.ts';
import { createLogger } from '../../src/platform/log.ts';
import { openDatabase, type Database } from '../../src/platform/db/database.ts';
import { KeyVerifier } from '../../src/domain/access/verifier.ts';
import { resolvePepper } from '../../src/domain/access/pepper.ts';
import { importFeed } from '../../src/domain/feeds/store.ts';
import { parseFeedText } from '../../src/domain/feeds/parse.ts';
import { cli, MODELS, readAll, seedEveryTable } from '../helpers/seed-every-table.ts';

/**
 * `db backup` taken through the admin socket of a running server, restored by `db restore` into a fresh
 * DATA_DIR, holds every table of the Prisma schema with the same rows; API keys still verify (the pepper came
 * along); a backup under concurrent writes restores a state between transactions. A restore over a live or an
 * occupied data directory is refused and changes nothing. On PostgreSQL: `db status`, the refusal of
 * `db backup`, and the pg_dump / pg_restore procedure of docs/operations.md.
 */
const run = promisify(execFile);

describe.skipIf(usingPostgres)(`risk-api db backup / restore while the server runs (${backendName})`, () => {
  let env: TestEnv;
  let app: App;
  let secret: string;
  const scratch = mkdtempSync(path.join(tmpdir(), 'risk-api-backup-'));
  const fresh = path.join(scratch, 'restored');
  const file = path.join(scratch, 'nightly.tar.gz');

  beforeAll(async () => {
    env = await freshEnvironment({ PUBLISH_INTERVAL_MS: '0' });
    app = await createApp(loadConfig(env.env), { log: createLogger('silent') });
    await app.start(0, '127.0.0.1');
    secret = await seedEveryTable(app);
    await app.verifier.verify(secret);
    await app.verifier.flushLastUsed(); // nothing left for the server to write after the backup
  });
  afterAll(async () => {
    await app?.close();
    await env?.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('every model of the Prisma schema has rows to compare', async () => {
    const rows = await readAll(app.db.prisma);
    expect(MODELS.length).toBeGreaterThanOrEqual(19);
    expect(
      MODELS.filter((m) => rows[m]!.length === 0),
      'seed a row in each new table',
    ).toEqual([]);
  });

  it('writes the backup through the running server, 0600, and says what it holds', async () => {
    const r = await cli(env.env, 'db', 'backup', file, '--json');
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({ file, secrets: ['secrets/api-key-pepper'], tables: MODELS.length + 1 });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(result.bytes).toBe(statSync(file).size);
  });

  it('refuses to restore over the live data directory, naming the process', async () => {
    const r = await cli(env.env, 'db', 'restore', file);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: process ${process.pid} is using ${env.dataDir}`);
    expect(r.stderr).toContain('stop it, restore, then start it again');
  });

  it('restores into a fresh data directory: every table reads back the same, and the API key still verifies', async () => {
    const r = await cli({ ...env.env, DATA_DIR: fresh }, 'db', 'restore', file);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`into ${fresh}: ${MODELS.length + 1} tables`);
    const live = await readAll(app.db.prisma);
    const db: Database = await openDatabase({ dataDir: fresh });
    try {
      expect(await readAll(db.prisma)).toEqual(live);
      const viewer = await new KeyVerifier(db.prisma, resolvePepper(undefined, fresh), 0).verify(secret);
      expect(viewer).toMatchObject({ workspaceName: 'backup-ws' });
      expect((await db.status()).pending).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('refuses a restore over the restored database without --force; with it, sets the old one aside', async () => {
    const refused = await cli({ ...env.env, DATA_DIR: fresh }, 'db', 'restore', file);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`error: ${path.join(fresh, 'pglite')} already holds a database`);
    const forced = await cli({ ...env.env, DATA_DIR: fresh }, 'db', 'restore', file, '--force', '--json');
    expect(forced.code, forced.stderr).toBe(0);
    const aside = JSON.parse(forced.stdout).setAside as string[];
    expect(aside).toHaveLength(1);
    expect(aside[0]).toMatch(/^pglite\.before-restore-/);
    expect(statSync(path.join(fresh, aside[0]!, 'PG_VERSION')).isFile()).toBe(true);
  });

  it('refuses a truncated or foreign file and changes nothing', async () => {
    const bytes = (await import('node:fs')).readFileSync(file);
    const truncated = path.join(scratch, 'cut.tar.gz');
    writeFileSync(truncated, bytes.subarray(0, bytes.length >> 1));
    const empty = path.join(scratch, 'empty');
    const cut = await cli({ ...env.env, DATA_DIR: empty }, 'db', 'restore', truncated);
    expect(cut.code).toBe(1);
    expect(cut.stderr).toContain('the file is truncated');
    const foreign = path.join(scratch, 'notes.txt');
    writeFileSync(foreign, 'not a backup\n');
    const wrong = await cli({ ...env.env, DATA_DIR: empty }, 'db', 'restore', foreign);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('not a gzip file');
    const missing = await cli({ ...env.env, DATA_DIR: empty }, 'db', 'restore', path.join(scratch, 'nope.tar.gz'));
    expect(missing.stderr.trim()).toBe(`error: no such file: ${path.join(scratch, 'nope.tar.gz')}`);
    expect(() => statSync(path.join(empty, 'pglite'))).toThrow();
  });

  it('a backup taken under concurrent feed replacements restores a state between transactions', async () => {
    let writing = true;
    let imports = 0;
    const writer = (async () => {
      for (let n = 1; writing; n++) {
        const text = Array.from({ length: 50 + (n % 7) * 100 }, (_, i) => `10.${n % 200}.${i >> 8}.${i & 255}`).join(
          '\n',
        );
        await importFeed(app.db.prisma, {
          name: 'churn',
          format: 'plain',
          source: 'inline',
          parsed: parseFeedText(text, 'plain'),
        });
        imports++;
        await sleep(20); // a steady stream of transactions, not one that starves the server's socket
      }
    })();
    const under = path.join(scratch, 'under-load.tar.gz');
    const r = await cli(env.env, 'db', 'backup', under);
    writing = false;
    await writer;
    expect(r.code, r.stderr).toBe(0);
    expect(imports).toBeGreaterThan(1);
    const target = path.join(scratch, 'under-load');
    expect((await cli({ ...env.env, DATA_DIR: target }, 'db', 'restore', under)).code).toBe(0);
    const db = await openDatabase({ dataDir: target });
    try {
      const feeds = await db.prisma.feed.findMany({ select: { id: true, entryCount: true } });
      for (const f of feeds) expect(await db.prisma.feedEntry.count({ where: { feedId: f.id } })).toBe(f.entryCount);
    } finally {
      await db.close();
    }
  });
});

describe.skipIf(!usingPostgres)(`backups on PostgreSQL (${backendName})`, () => {
  let env: TestEnv;
  let restored: TestEnv;
  beforeAll(async () => {
    env = await freshEnvironment();
    restored = await freshEnvironment({}, { empty: true }); // pg_restore creates every object itself
    const app = await createApp(loadConfig({ ...env.env, PUBLISH_INTERVAL_MS: '0' }), { log: createLogger('silent') });
    try {
      await seedEveryTable(app);
      await app.verifier.flushLastUsed();
    } finally {
      await app.close();
    }
  });
  afterAll(async () => {
    await env?.cleanup();
    await restored?.cleanup();
  });

  it('db status names the backend and the migrations; db backup points to pg_dump', async () => {
    const status = await cli(env.env, 'db', 'status', '--json');
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ backend: 'postgresql', pending: [], changed: [], unknown: [] });
    const backup = await cli(env.env, 'db', 'backup', path.join(env.dataDir, 'x.tar.gz'));
    expect(backup.code).toBe(1);
    expect(backup.stderr).toContain('pg_dump -Fc');
  });

  it('the documented pg_dump -Fc / pg_restore procedure restores every table', async () => {
    const dump = path.join(env.dataDir, 'risk.dump');
    await run('pg_dump', ['-Fc', '--no-owner', '-f', dump, env.env.DATABASE_URL!]);
    await run('pg_restore', ['--no-owner', '--exit-on-error', '-d', restored.env.DATABASE_URL!, dump]);
    const [a, b] = [
      await openDatabase({ databaseUrl: env.env.DATABASE_URL, dataDir: env.dataDir }),
      await openDatabase({ databaseUrl: restored.env.DATABASE_URL, dataDir: restored.dataDir }),
    ];
    try {
      const live = await readAll(a.prisma);
      expect(MODELS.filter((m) => live[m]!.length === 0)).toEqual([]);
      expect(await readAll(b.prisma)).toEqual(live);
      expect((await b.status()).pending).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
