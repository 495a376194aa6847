/**
 * `npm run bench:key-timing`: does API key verification take longer for a wrong secret with a
 * valid prefix than for an unknown prefix? Measures KeyVerifier.verify() in-process (no HTTP
 * noise) on the embedded database and, when PostgreSQL answers at BENCH_PG_URL, on PostgreSQL:
 * many samples of both cases, interleaved in a random order so drift hits both alike, with the
 * key cache off (every call reads the database: the case an attacker probing fresh prefixes gets)
 * and on. Prints medians and the median difference; the figure goes to docs/reliability.md, not to a test
 * (the test, test/reliability/key-timing.test.ts, proves the two paths do the same operations).
 *
 *   --samples N   samples per case (default 4000)
 */
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../src/platform/db/database.ts';
import { KeyVerifier } from '../src/domain/access/verifier.ts';
import { createApiKey } from '../src/domain/access/keys.ts';
import { generateApiKey } from '../src/domain/access/key-format.ts';
import { ADMIN_PG_URL } from './backends.ts';

const { values: args } = parseArgs({ options: { samples: { type: 'string', default: '4000' } } });
const SAMPLES = Number(args.samples);
const PEPPER = randomBytes(32).toString('hex');

type Row = { backend: string; cache: string; unknownUs: number; wrongUs: number; p90Unknown: number; p90Wrong: number };

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function measure(db: Database, backend: string): Promise<Row[]> {
  const known = await createApiKey(db.prisma, PEPPER, { workspace: 'timing', name: 'known' });
  const wrong = `${known.prefix}_${generateApiKey().secret.slice(-40)}`;
  const rows: Row[] = [];
  for (const ttlMs of [0, 60_000]) {
    const verifier = new KeyVerifier(db.prisma, PEPPER, ttlMs);
    // Cold: a new unknown prefix every call; cached: one unknown prefix, remembered as "no such key".
    const fixedUnknown = generateApiKey().secret;
    const unknown = () => (ttlMs === 0 ? generateApiKey().secret : fixedUnknown);
    const time = async (key: string) => {
      const t0 = performance.now();
      await verifier.verify(key).then(
        () => {
          throw new Error('a wrong key was accepted');
        },
        (e: { code?: string }) => {
          if (e.code !== 'invalid_api_key') throw e;
        },
      );
      return (performance.now() - t0) * 1000;
    };
    for (let i = 0; i < 300; i++) {
      await time(unknown());
      await time(wrong);
    } // warm-up (JIT, connections, caches)
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      if (Math.random() < 0.5) {
        a.push(await time(unknown()));
        b.push(await time(wrong));
      } else {
        b.push(await time(wrong));
        a.push(await time(unknown()));
      }
    }
    a.sort((x, y) => x - y);
    b.sort((x, y) => x - y);
    rows.push({
      backend,
      cache: ttlMs === 0 ? 'off (database read per call)' : 'on (cached row)',
      unknownUs: quantile(a, 0.5),
      wrongUs: quantile(b, 0.5),
      p90Unknown: quantile(a, 0.9),
      p90Wrong: quantile(b, 0.9),
    });
  }
  return rows;
}

async function postgres(): Promise<{ db: Database; drop(): Promise<void> } | null> {
  const admin = new pg.Client({ connectionString: ADMIN_PG_URL });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  const name = `key_timing_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_PG_URL);
  url.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: url.toString(), dataDir: '' });
  await db.migrate();
  return {
    db,
    async drop() {
      await db.close();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

const rows: Row[] = [];
const embedded = await openDatabase({ dataDir: '', inMemory: true });
try {
  await embedded.migrate();
  rows.push(...(await measure(embedded, 'embedded (PGlite)')));
} finally {
  await embedded.close();
}
const pgdb = await postgres();
if (pgdb) {
  try {
    rows.push(...(await measure(pgdb.db, 'PostgreSQL')));
  } finally {
    await pgdb.drop();
  }
} else {
  console.error(`PostgreSQL not reachable at ${ADMIN_PG_URL}: measured the embedded database only`);
}

const f = (us: number) => us.toFixed(1);
console.log(
  `### API key verification: unknown prefix vs wrong secret — ${SAMPLES} interleaved samples per case, ${new Date().toISOString().slice(0, 16)} UTC\n`,
);
console.log(
  '| database | key cache | unknown prefix p50 µs | wrong secret p50 µs | difference of p50 | p90 unknown / wrong µs |',
);
console.log('|---|---|--:|--:|--:|--:|');
for (const r of rows) {
  const diff = r.wrongUs - r.unknownUs;
  console.log(
    `| ${r.backend} | ${r.cache} | ${f(r.unknownUs)} | ${f(r.wrongUs)} | ${diff >= 0 ? '+' : ''}${f(diff)} µs (${((diff / r.unknownUs) * 100).toFixed(1)}%) | ${f(r.p90Unknown)} / ${f(r.p90Wrong)} |`,
  );
}
