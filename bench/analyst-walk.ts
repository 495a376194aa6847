/**
 * `npx tsx bench/analyst-walk.ts`: how the four analyst-graph documents of the soak
 * (bench/scenarios.ts, scenario 'analyst-graphql': a subject walked three hops, a filtered report
 * page, an IP's ratings with its related subjects and dimensions, the aggregates) scale as the
 * Report table grows.
 *
 * One fresh database (PostgreSQL by default: a new database beside BENCH_PG_URL, dropped at the
 * end; `--backend embedded` for PGlite in a temp dir) with two workspaces shaped like the soak's:
 * 2,048 "hot" IP subjects, 5,000 `account` subjects, two ratings per IP, and reports about the hot
 * IPs (the n-th about IP n·7919 mod 2048, related account acct-(n mod 5000), the soak's `report`
 * bodies). The second workspace only grows the tables, as other tenants do. The Report table grows
 * in steps (bulk SQL, then VACUUM ANALYZE: the steady state autovacuum keeps under inserts); at
 * each step every document is sent over HTTP to the real server (yoga, the cost limits, the
 * resolvers, Prisma) and its p50/p99 printed; then one execution per document is replayed with
 * EXPLAIN (ANALYZE, BUFFERS) to print the pages it touched and its statement count — figures that
 * do not move with the machine's load, unlike the latencies on a shared 2-core host.
 *
 *   --backend postgres|embedded   (default postgres; embedded prints latencies and Prisma operations only)
 *   --steps 5000,20000,50000      cumulative reports per workspace to measure at
 *   --rounds 200                  requests per document per step
 *   --concurrency 4               requests in flight
 *   --explain                     also print the plan of every statement (at the last step)
 *   --analyze-only                ANALYZE without VACUUM after each step: the state just after a burst of inserts, before
 *                                 autovacuum has marked the new pages all-visible (no index-only scans over them yet)
 *   --keep                        keep the PostgreSQL database (its URL is printed) for more EXPLAINs; drop it yourself
 */
import { parseArgs } from 'node:util';
import { execute, parse } from 'graphql';
import { loadConfig } from '../src/config.ts';
import { createApp } from '../src/app.ts';
import { createLogger } from '../src/platform/log.ts';
import { createApiKey } from '../src/domain/access/keys.ts';
import { schema } from '../src/transport/graphql/schema.ts';
import type { RequestContext } from '../src/transport/http/request-context.ts';
import type { PrismaClient } from '../src/generated/prisma/client.ts';
import { embeddedBackend, postgresBackend, type Backend } from './backends.ts';
import { percentile } from './load.ts';
import { scenarios } from './scenarios.ts';

const { values: args } = parseArgs({
  options: {
    backend: { type: 'string', default: 'postgres' },
    steps: { type: 'string', default: '5000,20000,50000' },
    rounds: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '4' },
    explain: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    'analyze-only': { type: 'boolean', default: false },
  },
});
const STEPS = args.steps!.split(',').map((s) => Number(s.trim()));
if (STEPS.some((n) => !Number.isInteger(n) || n < 1) || STEPS.some((n, i) => i > 0 && n <= STEPS[i - 1]!))
  throw new Error('--steps: increasing positive integers');
const ROUNDS = Number(args.rounds);
const CONCURRENCY = Number(args.concurrency);
const HOT_IPS = 2048;
const ACCOUNTS = 5000;
const DOCS = ['Walk', 'Page', 'Ratings', 'Aggregates'] as const;
const OUTCOMES = [
  'fraud_confirmed',
  'chargeback',
  'credential_stuffing',
  'fraud_watch',
  'spam',
  'bot_activity',
  'legitimate',
];
const SEVERITIES = ['low', 'medium', 'high', 'critical'];

const log = (msg: string) => console.error(`[analyst-walk +${Math.round(process.uptime())}s] ${msg}`);
const hotIp = (i: number) => `100.${64 + (i >> 8)}.${i & 255}.${1 + (i % 200)}`;

const backend: Backend =
  args.backend === 'embedded' ? embeddedBackend() : await postgresBackend({ label: 'analyst_walk' });
const config = loadConfig({
  DATA_DIR: backend.dataDir,
  LOG_LEVEL: 'silent',
  PORT: '0',
  PUBLISH_INTERVAL_MS: '0',
  API_KEY_PEPPER: 'analyst-walk-pepper-0123456789abcdef',
  ...backend.env,
});
const app = await createApp(config, { log: createLogger('silent') });
try {
  const url = await app.start(0, '127.0.0.1');
  const prisma = app.db.prisma;
  const key = await createApiKey(prisma, app.pepper, { workspace: 'walk', name: 'bench', tier: 'enterprise' });
  // A second workspace with the same subjects and as many reports: another tenant's rows in the same tables.
  await createApiKey(prisma, app.pepper, { workspace: 'walk-other', name: 'bench', tier: 'enterprise' });
  const ws = (await prisma.workspace.findUniqueOrThrow({ where: { name: 'walk' } })).id;
  const wsOther = (await prisma.workspace.findUniqueOrThrow({ where: { name: 'walk-other' } })).id;
  const viewer = await app.verifier.verify(key.secret);

  for (const w of [ws, wsOther]) {
    await prisma.$executeRawUnsafe(
      `INSERT INTO "Subject" ("workspaceId", kind, key) SELECT $1, 'ipaddress', k FROM unnest($2::text[]) k`,
      w,
      Array.from({ length: HOT_IPS }, (_, i) => hotIp(i)),
    );
    await prisma.$executeRawUnsafe(
      `INSERT INTO "Subject" ("workspaceId", kind, key) SELECT $1, 'account', 'acct-' || g FROM generate_series(0, $2::int - 1) g`,
      w,
      ACCOUNTS,
    );
    await prisma.$executeRawUnsafe(
      `INSERT INTO "Rating" ("workspaceId", "subjectId", rating, note, "createdAt")
       SELECT $1, s.id, (g % 3) - 1, '', now() - (g || ' seconds')::interval FROM "Subject" s, generate_series(0, 1) g WHERE s."workspaceId" = $1 AND s.kind = 'ipaddress'`,
      w,
    );
  }

  let written = 0;
  /** Appends reports to both workspaces up to `to` each (ids ascend with n, so links follow by row number). */
  async function grow(to: number) {
    for (const w of [ws, wsOther]) {
      for (let start = written; start < to; start += 20_000) {
        const end = Math.min(to, start + 20_000);
        await prisma.$transaction(async (tx) => {
          await tx.$executeRawUnsafe(
            `
            INSERT INTO "Report" ("workspaceId", "subjectId", "eventType", "outcomeCode", severity, title, summary, details, tags, status,
                                  "sharePolicy", namespace, "requestedVisibility", "effectiveVisibility", "policyNotice", "createdAt")
            SELECT $1, ip.id, 'outcome', (ARRAY['${OUTCOMES.join("','")}'])[1 + g % ${OUTCOMES.length}],
                   (ARRAY['${SEVERITIES.join("','")}'])[1 + g % ${SEVERITIES.length}],
                   'Checkout velocity', 'Order ' || g || ': cards tried in ten minutes', '', ARRAY['checkout', 'bench-' || (g % 16)], '',
                   'clear_share', '', CASE WHEN g % 2 = 1 THEN 'community' ELSE 'workspace' END,
                   CASE WHEN g % 2 = 1 THEN 'community' ELSE 'workspace' END, '',
                   now() - make_interval(secs => ($3::int - g) * 0.01)
              FROM generate_series($2::int, $3::int - 1) g
              JOIN (SELECT id, row_number() OVER (ORDER BY id) - 1 AS i FROM "Subject" WHERE "workspaceId" = $1 AND kind = 'ipaddress') ip
                ON ip.i = (g::bigint * 7919) % ${HOT_IPS}
             ORDER BY g`,
            w,
            start,
            end,
          );
          await tx.$executeRawUnsafe(
            `
            INSERT INTO "ReportLink" ("reportId", "subjectId", role, position)
            SELECT r.id, a.id, 'account', 0
              FROM (SELECT id, $2::int - 1 + row_number() OVER (ORDER BY id) AS n FROM "Report" WHERE "workspaceId" = $1 ORDER BY id DESC LIMIT $3::int - $2::int) r
              JOIN "Subject" a ON a."workspaceId" = $1 AND a.kind = 'account' AND a.key = 'acct-' || (r.n % ${ACCOUNTS})`,
            w,
            start,
            end,
          );
        });
      }
    }
    written = to;
    // What autovacuum keeps up under a steady insert load (statistics, visibility map), done now
    // so each step measures that steady state rather than a just-loaded table; same for any build.
    await prisma.$executeRawUnsafe(
      `${args['analyze-only'] ? 'ANALYZE' : 'VACUUM ANALYZE'} "Report", "ReportLink", "Subject", "Rating"`,
    );
  }

  // SQL statements per document: a second client over the same PostgreSQL database with Prisma's query log.
  let logging: PrismaClient | null = null;
  let listener: ((q: string) => void) | null = null;
  const onQuery = (f: (q: string) => void) => {
    listener = f;
    return () => {
      listener = null;
    };
  };
  if (backend.databaseUrl) {
    const { PrismaPg } = await import('@prisma/adapter-pg');
    const { PrismaClient: Client } = await import('../src/generated/prisma/client.ts');
    const c = new Client({
      adapter: new PrismaPg({ connectionString: backend.databaseUrl, max: 2 }),
      log: [{ emit: 'event', level: 'query' }],
    });
    c.$on('query', (e: { query: string; params: string }) => listener?.(`${e.query} -- ${e.params}`));
    logging = c as unknown as PrismaClient;
  }

  const analyst = scenarios('{ hello }')['analyst-graphql'];
  const bodies = (d: number, i: number) => {
    const ip = hotIp((i * 7919) % HOT_IPS);
    return analyst.body(ip, d + 4 * i, [ip]);
  };

  async function send(body: string, secret: string): Promise<{ ms: number; json: any }> {
    const t0 = performance.now();
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': secret },
      body,
    });
    const json = (await res.json()) as any;
    const ms = performance.now() - t0;
    if (res.status !== 200 || json.errors)
      throw new Error(`status ${res.status}: ${JSON.stringify(json).slice(0, 500)}`);
    return { ms, json };
  }

  /** Database operations of one execution, counted by a Prisma extension on the server's own client. */
  async function operations(body: string): Promise<{ ops: number; sql: string[] }> {
    let ops = 0;
    const sql: string[] = [];
    const base = logging ?? prisma;
    const off = logging ? onQuery((q) => sql.push(q)) : () => {};
    const counted = base.$extends({
      query: {
        $allOperations({ args: a, query }) {
          ops++;
          return query(a);
        },
      },
    }) as unknown as PrismaClient;
    const { query, variables } = JSON.parse(body);
    const ctx: RequestContext = {
      prisma: counted,
      services: { ...app.services, prisma: counted },
      viewer,
      requestId: 'walk',
      via: 'graphql',
      clientIp: '127.0.0.1',
    };
    const result = await execute({ schema, document: parse(query), variableValues: variables, contextValue: ctx });
    off();
    if (result.errors) throw new Error(JSON.stringify(result.errors));
    return { ops, sql };
  }

  /**
   * The database work of the statements a document ran, replayed with EXPLAIN (ANALYZE, BUFFERS)
   * with the parameters they ran with: 8 kB pages touched (shared hit + read) and execution time
   * summed over the statements. Pages do not depend on the machine's load, so they show the
   * scaling even on a busy host. With --explain the plans are printed too.
   */
  async function databaseCost(
    doc: string,
    statements: string[],
    print: boolean,
  ): Promise<{ pages: number; ms: number }> {
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: backend.databaseUrl });
    await client.connect();
    let pages = 0;
    let ms = 0;
    try {
      for (const st of statements) {
        const cut = st.lastIndexOf(' -- ');
        const sqlText = st.slice(0, cut);
        const params = JSON.parse(st.slice(cut + 4)) as unknown[];
        const json = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sqlText}`, params);
        const top = (
          json.rows[0]['QUERY PLAN'] as Array<{ Plan: Record<string, number>; 'Execution Time': number }>
        )[0]!;
        pages += (top.Plan['Shared Hit Blocks'] ?? 0) + (top.Plan['Shared Read Blocks'] ?? 0);
        ms += top['Execution Time'];
        if (print) {
          const plan = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${sqlText}`, params);
          console.error(`\n--- ${doc}: ${sqlText.slice(0, 600)}\n    params ${JSON.stringify(params).slice(0, 200)}`);
          for (const row of plan.rows) console.error(`    ${row['QUERY PLAN']}`);
        }
      }
    } finally {
      await client.end();
    }
    return { pages, ms };
  }

  const latency: string[] = [];
  const work: string[] = [];
  latency.push(
    `| reports per workspace | ${DOCS.map((d) => `${d} p50 / p99 ms`).join(' | ')} |`,
    `|--:|${DOCS.map(() => '--:').join('|')}|`,
  );
  work.push(
    `| reports per workspace | ${DOCS.map((d) => `${d}: pages · DB ms · statements (ops)`).join(' | ')} |`,
    `|--:|${DOCS.map(() => '--:').join('|')}|`,
  );
  for (const step of STEPS) {
    log(`growing to ${step} reports per workspace (2 workspaces)`);
    await grow(step);
    const cells: string[] = [];
    const workCells: string[] = [];
    for (let d = 0; d < DOCS.length; d++) {
      for (let i = 0; i < 10; i++) await send(bodies(d, i), key.secret); // warm-up
      const lat: number[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < ROUNDS) {
            const i = next++;
            lat.push((await send(bodies(d, i), key.secret)).ms);
          }
        }),
      );
      const sorted = Float64Array.from(lat).sort();
      cells.push(`${percentile(sorted, 0.5).toFixed(1)} / ${percentile(sorted, 0.99).toFixed(1)}`);
      const counted = await operations(bodies(d, 1));
      if (logging) {
        const cost = await databaseCost(DOCS[d]!, counted.sql, args.explain! && step === STEPS.at(-1));
        workCells.push(
          `${cost.pages.toLocaleString('en-US')} · ${cost.ms.toFixed(1)} · ${counted.sql.length} (${counted.ops})`,
        );
      } else {
        workCells.push(`– · – · – (${counted.ops})`);
      }
    }
    latency.push(`| ${step.toLocaleString('en-US')} | ${cells.join(' | ')} |`);
    work.push(`| ${step.toLocaleString('en-US')} | ${workCells.join(' | ')} |`);
    log(`${latency.at(-1)}\n${work.at(-1)}`);
  }
  console.log(
    `### analyst graph vs Report table size — ${backend.name}, ${args['analyze-only'] ? 'ANALYZE only after each step (new pages not yet vacuumed)' : 'VACUUM ANALYZE after each step'}\n`,
  );
  console.log(
    `Two workspaces of the same shape (the second only grows the tables); every figure is the first workspace's.`,
  );
  console.log(`Latency: ${ROUNDS} requests per document per step over HTTP, ${CONCURRENCY} in flight.\n`);
  console.log(latency.join('\n'));
  console.log(
    `\nDatabase work of one request (EXPLAIN ANALYZE BUFFERS of each statement it ran: 8 kB pages touched, execution ms; statements, and Prisma operations in parentheses):\n`,
  );
  console.log(work.join('\n'));
  await logging?.$disconnect();
} finally {
  await app.close();
  if (args.keep && backend.databaseUrl) log(`kept ${backend.databaseUrl}`);
  else await backend.remove();
}
