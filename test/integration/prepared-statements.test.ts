import { afterEach, describe, expect, it } from 'vitest';
import { freshEnvironment, usingPostgres, type TestEnv } from '../helpers/backend.ts';
import { openDatabase, type Database } from '../../src/platform/db/database.ts';
import { writeRating, writeReport } from '../../src/domain/memory/writes.ts';
import { reportInputSchema } from '../../src/domain/memory/schemas.ts';
import { IpMemoryCache } from '../../src/domain/memory/ip-memory.ts';
import type { Viewer } from '../../src/domain/access/verifier.ts';

/**
 * On PostgreSQL the hot fixed statements (rating and report batch writes, the catch-ups of the IP memory and the override rules
 * that `score` reads) run as named prepared statements, and nothing else does (src/platform/db/statement-names.ts).
 * pg_prepared_statements lists a connection's own statements; the calls below run one after the
 * other, so the pool reuses its one connection for all of them and for the check.
 */
describe.skipIf(!usingPostgres)('prepared statements on PostgreSQL', () => {
  let env: TestEnv;
  let db: Database;
  afterEach(async () => {
    await db?.close();
    await env?.cleanup();
  });

  async function open(preparedStatements?: boolean): Promise<Viewer> {
    env = await freshEnvironment();
    db = await openDatabase({
      databaseUrl: env.env.DATABASE_URL,
      dataDir: env.dataDir,
      ...(preparedStatements === undefined ? {} : { preparedStatements }),
    });
    await db.migrate();
    const ws = await db.prisma.workspace.create({ data: { name: `prepared-${Date.now()}`, tier: 'pro' } });
    const key = await db.prisma.apiKey.create({
      data: { workspaceId: ws.id, name: 'k', prefix: `p${Date.now()}`, secretHash: 'x' },
    });
    return {
      workspaceId: ws.id,
      workspaceName: ws.name,
      tier: ws.tier,
      apiKeyId: key.id,
      keyName: key.name,
      keyPrefix: key.prefix,
    } as Viewer;
  }

  async function writeAndRead(viewer: Viewer) {
    const memory = new IpMemoryCache(db.prisma);
    const deps = { prisma: db.prisma, ipMemory: memory };
    for (const rating of [1, -1]) await writeRating(deps, viewer, { ip: '192.0.2.7', rating, note: '' });
    const report = reportInputSchema.parse({
      kind: 'ipaddress',
      key: '192.0.2.7',
      title: 't',
      outcomeCode: 'fraud_watch',
      severity: 'high',
      tags: ['a'],
      relatedSubjects: [{ kind: 'email', key: 'mule@example.com', role: 'account' }],
    });
    for (let i = 0; i < 2; i++) await writeReport(deps, viewer, report);
    const other = new IpMemoryCache(db.prisma); // another process's copy, read from the table
    await other.catchUp();
    expect(other.get(viewer.workspaceId, '192.0.2.7')).toEqual(memory.get(viewer.workspaceId, '192.0.2.7'));
    return other.get(viewer.workspaceId, '192.0.2.7');
  }

  const prepared = async () =>
    db.prisma.$queryRawUnsafe<Array<{ name: string; statement: string; generic_plans: bigint; custom_plans: bigint }>>(
      'SELECT name, statement, generic_plans, custom_plans FROM pg_prepared_statements ORDER BY name',
    );

  it('prepares the rating and report writes and the IP-memory catch-up once each, and nothing else', async () => {
    const viewer = await open();
    const memory = await writeAndRead(viewer);
    expect(memory, 'the answers are those of unprepared statements').toEqual({
      goodRatings: 1,
      neutralRatings: 0,
      badRatings: 1,
      reports: 2,
      lastRating: expect.objectContaining({ rating: -1 }),
    });
    const statements = await prepared();
    const which = (sql: string) =>
      sql.includes('INSERT INTO "Rating"')
        ? 'rating batch'
        : sql.includes('INSERT INTO "Report"')
          ? 'report batch'
          : sql.includes('FROM "SubjectMemory" m')
            ? 'IP-memory catch-up'
            : sql.slice(0, 80);
    // runs per statement: each write ran twice, the catch-up once (a second run of a prepared statement sends no SQL)
    expect(
      Object.fromEntries(statements.map((s) => [which(s.statement), Number(s.generic_plans) + Number(s.custom_plans)])),
    ).toEqual({ 'rating batch': 2, 'report batch': 2, 'IP-memory catch-up': 1 });
    expect(
      statements.every((s) => /^risk_[0-9a-f]{24}$/.test(s.name)),
      JSON.stringify(statements.map((s) => s.name)),
    ).toBe(true);
  });

  it('prepares nothing with DATABASE_PREPARED_STATEMENTS=false (a pooler that cannot carry them)', async () => {
    const viewer = await open(false);
    const memory = await writeAndRead(viewer);
    expect(memory.reports).toBe(2);
    expect(await prepared()).toEqual([]);
  });
});
