import type { PGlite } from '@electric-sql/pglite';

/**
 * PGlite is PostgreSQL in this process with none of its background workers, so no autovacuum: its tables never got
 * planner statistics, nor had their dead rows removed. Without statistics the planner guesses, and guessed a
 * sequential scan, a hash join and a sort for the IP-memory catch-up that every process runs every second to find
 * nothing new; on the main thread (PGlite runs here) that stalled every request behind it
 * (docs/decisions/0028-embedded-autovacuum.md). This does autovacuum's work with its default thresholds, one table at
 * a time, each statement taking its turn with the requests' (pglite-turns.ts).
 */

/** autovacuum_naptime's default: how often the embedded database looks for tables due. */
export const AUTOVACUUM_NAPTIME_MS = 60_000;

type Due = { name: string; vacuum: boolean };

/**
 * Tables past autovacuum's default thresholds (vacuum: 50 dead rows + 20% of the table; analyze: 50 rows changed + 10%),
 * and every table never analyzed (reltuples -1: a database created before this ran; its counters may not have survived
 * the process that wrote it, so they cannot tell).
 */
const DUE = `
  SELECT name, vacuum FROM (
    SELECT s.relname AS name,
           s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0) AS vacuum,
           s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0) OR c.reltuples < 0 AS stale
      FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid) t
   WHERE vacuum OR stale
   ORDER BY name`;

/** One round: vacuums and analyzes the tables due; answers their names. */
export async function autovacuumRound(pglite: PGlite): Promise<string[]> {
  // The counters PostgreSQL reads the thresholds from are flushed when a backend goes idle, which PGlite's never does.
  await pglite.query('SELECT pg_stat_force_next_flush()');
  const due = (await pglite.query<Due>(DUE)).rows;
  for (const t of due) {
    const table = `"${t.name.replaceAll('"', '""')}"`;
    await pglite.exec(t.vacuum ? `VACUUM (ANALYZE) ${table}` : `ANALYZE ${table}`);
  }
  return due.map((t) => t.name);
}
