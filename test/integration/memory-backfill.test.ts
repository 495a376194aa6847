/**
 * The migration that creates "SubjectMemory" fills it from the history already written: after it, every
 * subject's row equals a recount of its ratings and reports (test/helpers/memory-recount.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { migrate, MIGRATIONS_DIR } from '../../src/platform/db/migrate.ts';
import { pgliteRunner, postgresRunner, type SqlRunner } from '../../src/platform/db/sql.ts';
import { backendName, freshEnvironment, usingPostgres, type TestEnv } from '../helpers/backend.ts';
import { maintainedMemory, recountMemory } from '../helpers/memory-recount.ts';

const THIS_MIGRATION = /_subject_memory$/;

describe(`the subject memory migration's backfill (${backendName})`, () => {
  let env: TestEnv | undefined;
  let runner: SqlRunner | undefined;
  let pglite: PGlite | undefined;
  const earlier = mkdtempSync(path.join(tmpdir(), 'risk-migrations-'));
  afterAll(async () => {
    await runner?.close();
    await pglite?.close();
    await env?.cleanup();
    rmSync(earlier, { recursive: true, force: true });
  });

  it('counts every subject written about before it, as the score read counted them', async () => {
    if (usingPostgres) {
      env = await freshEnvironment({}, { empty: true }); // the earlier migrations run below, on an empty database
      runner = await postgresRunner(env.env.DATABASE_URL!);
    } else {
      pglite = new PGlite();
      runner = pgliteRunner(pglite);
    }
    const names = readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    const before = names.slice(
      0,
      names.findIndex((n) => THIS_MIGRATION.test(n)),
    );
    expect(before.length).toBeGreaterThan(0);
    for (const name of before) cpSync(path.join(MIGRATIONS_DIR, name), path.join(earlier, name), { recursive: true });
    await migrate(runner, earlier);

    // the history, written as the earlier releases wrote it
    await runner.exec(`
      INSERT INTO "Workspace" (id, name) VALUES (1, 'one'), (2, 'two');
      INSERT INTO "Subject" (id, "workspaceId", kind, key) VALUES
        (1, 1, 'ipaddress', '192.0.2.1'), (2, 1, 'ipaddress', '192.0.2.2'), (3, 1, 'domain', 'a.example'),
        (4, 2, 'ipaddress', '192.0.2.1'), (5, 1, 'ipaddress', '192.0.2.5');
      INSERT INTO "Rating" (id, "workspaceId", "subjectId", rating, note, "createdAt") VALUES
        (1, 1, 1, -1, 'first', now() - interval '2 days'), (2, 1, 1, 1, 'second', now() - interval '1 day'),
        (3, 1, 1, -1, 'third', now() - interval '3 days'), (4, 1, 2, 0, '', now()), (5, 2, 4, 1, 'other workspace', now());
      INSERT INTO "Report" (id, "workspaceId", "subjectId", "eventType", "outcomeCode", severity, title, summary, details, tags, status,
                            "sharePolicy", namespace, "requestedVisibility", "effectiveVisibility", "policyNotice") VALUES
        (1, 1, 1, 'observation', 'spam', 'low', 't', '', '', '{}', '', 'clear_share', '', 'workspace', 'workspace', ''),
        (2, 1, 3, 'observation', 'spam', 'low', 't', '', '', '{}', '', 'clear_share', '', 'workspace', 'workspace', ''),
        (3, 1, 3, 'observation', 'spam', 'low', 't', '', '', '{}', '', 'clear_share', '', 'workspace', 'workspace', ''),
        (4, 1, 1, 'observation', 'spam', 'low', 't', '', '', '{}', '', 'clear_share', '', 'workspace', 'workspace', '');
      INSERT INTO "ReportLink" ("reportId", "subjectId", role, position) VALUES
        (2, 1, 'source_ip', 0), (2, 2, 'source_ip', 1), (3, 2, 'source_ip', 0), (3, 2, 'hosting', 1), (4, 1, 'linked', 0);
    `);
    await migrate(runner, MIGRATIONS_DIR);

    const db = { $queryRawUnsafe: (sql: string, ...params: unknown[]) => runner!.query(sql, params) } as Parameters<
      typeof recountMemory
    >[0];
    const ids = [1, 2, 3, 4, 5];
    const maintained = await maintainedMemory(db, ids);
    expect(maintained).toEqual(await recountMemory(db, ids));
    // the figures themselves: the last rating is the highest id (not the latest time); each report once
    expect(maintained.map((m) => [m.subjectId, m.good, m.neutral, m.bad, m.reports, m.lastNote])).toEqual([
      [1, 1, 0, 2, 3, 'third'],
      [2, 0, 1, 0, 2, ''],
      [3, 0, 0, 0, 2, null],
      [4, 1, 0, 0, 0, 'other workspace'],
      [5, 0, 0, 0, 0, null],
    ]);
    expect(
      (await runner.query<{ n: number }>('SELECT count(*)::int AS n FROM "SubjectMemory"'))[0]!.n,
      'no row for a subject never written about',
    ).toBe(4);
  });
});
