import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/platform/db/database.ts';

/**
 * PGlite has no autovacuum worker: the embedded database does its work (src/platform/db/pglite-autovacuum.ts).
 * Without it the IP-memory catch-up, run every second by every process, was planned blind: a sequential scan of
 * every row written, on the main thread.
 */
describe('embedded autovacuum', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({ dataDir: '', inMemory: true });
    await db.migrate();
  });
  afterAll(async () => {
    await db.close();
  });

  const stats = async (table: string) =>
    (
      await db.prisma.$queryRawUnsafe<Array<{ reltuples: number; dead: number; mod: number }>>(
        `SELECT c.reltuples::float8 AS reltuples, s.n_dead_tup::int AS dead, s.n_mod_since_analyze::int AS mod
       FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid WHERE s.relname = $1`,
        table,
      )
    )[0]!;
  // The catch-up's own shape (src/domain/memory/ip-memory.ts), past every row written.
  const catchUpPlan = async () =>
    (
      await db.prisma.$queryRawUnsafe<Array<{ 'QUERY PLAN': string }>>(
        `EXPLAIN SELECT s."workspaceId", s."key", m."subjectId" FROM "SubjectMemory" m JOIN "Subject" s ON s."id" = m."subjectId"
      WHERE (m."writtenXid", m."subjectId") > (9223372036854775806::bigint, 0) AND s."kind" = 'ipaddress'
      ORDER BY m."writtenXid", m."subjectId" LIMIT 1000`,
      )
    )
      .map((r) => r['QUERY PLAN'])
      .join('\n');

  it('analyzes the tables never analyzed, then only those past the thresholds, and vacuums dead rows', async () => {
    expect(await db.autovacuum!(), 'every table of a new database: none analyzed yet').toEqual(
      expect.arrayContaining(['ApiKey', 'Subject', 'SubjectMemory', 'Tier']),
    );
    expect(await db.autovacuum!(), 'nothing is due right after a round').toEqual([]);

    await db.prisma.$executeRawUnsafe(`INSERT INTO "Workspace" ("name", "tier") VALUES ('vacuum', 'pro')`);
    await db.prisma.$executeRawUnsafe(`INSERT INTO "Subject" ("workspaceId", "kind", "key")
      SELECT w."id", 'ipaddress', '10.9.' || (g / 256) || '.' || (g % 256) FROM generate_series(1, 20000) g, "Workspace" w WHERE w."name" = 'vacuum'`);
    await db.prisma.$executeRawUnsafe(`INSERT INTO "SubjectMemory" ("subjectId", "good", "neutral", "bad", "reports", "revision", "writtenXid")
      SELECT "id", 0, 0, 1, 0, 1, 1 FROM "Subject"`);
    // Blind, the planner does not see that the catch-up stops at once on the index (the plan it picks instead varies
    // with the schema's other indexes).
    expect(await catchUpPlan(), 'planned blind before').not.toMatch(/SubjectMemory_writtenXid_subjectId_idx/);

    expect(await db.autovacuum!()).toEqual(['Subject', 'SubjectMemory']);
    expect((await stats('SubjectMemory')).reltuples).toBe(20000);
    expect(await catchUpPlan(), 'with statistics: the index, stopping at once').toMatch(
      /Index (Only )?Scan using "SubjectMemory_writtenXid_subjectId_idx"/,
    );

    // 50 + 10% of 20,000 rows changed is the analyze threshold, 50 + 20% dead the vacuum one.
    await db.prisma.$executeRawUnsafe(`UPDATE "SubjectMemory" SET "bad" = 2 WHERE "subjectId" % 20 = 0`); // 1,000 rows
    expect(await db.autovacuum!(), '1,000 changed rows of 20,000: below both thresholds').toEqual([]);
    await db.prisma.$executeRawUnsafe(`UPDATE "SubjectMemory" SET "bad" = 3 WHERE "subjectId" % 4 = 0`); // 5,000 more
    expect(await db.autovacuum!()).toEqual(['SubjectMemory']);
    const after = await stats('SubjectMemory');
    expect(after.dead, 'vacuumed').toBe(0);
    expect(after.mod, 'analyzed').toBe(0);
    expect(await db.autovacuum!()).toEqual([]);
  });
});
