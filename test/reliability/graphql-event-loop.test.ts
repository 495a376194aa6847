import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { openDatabase } from '../../src/platform/db/database.ts';
import { createApiKey } from '../../src/domain/access/keys.ts';
import { resolvePepper } from '../../src/domain/access/pepper.ts';
import { backendName, freshEnvironment, type TestEnv } from '../helpers/backend.ts';
import { ServerProcesses } from './support.ts';
import type { PrismaClient } from '../../src/generated/prisma/client.ts';
import { parse } from 'graphql';
import { schema } from '../../src/transport/graphql/schema.ts';
import { estimateCost } from '../../src/transport/graphql/cost.ts';
import { QUERY_LIMITS } from '../../src/transport/graphql/limits.ts';

/**
 * Audit item: one request from a Free account (400 ids in `nodes`) ran 27 s, answered 129 MB and
 * stalled /healthz for seconds; 30 aliases of an entity's `ips` took 27-29 s. Here the worst requests
 * an account can write at the cost ceiling (on the cheapest tier that may read dimensions: see beforeAll) (and the audit's own) run concurrently against a
 * workspace filled to the write rules' maxima, while /healthz is probed: every probe must be answered
 * within 100 ms of the server's time, i.e. no request holds the server's event loop that long.
 *
 * What is measured, and why it holds on a loaded 2-core CI machine: the server runs in a process of
 * its own (as `npm start`), the probe in another (test/helpers/healthz-probe.mjs), on a connection
 * opened before timing starts; the requests' answers are discarded unparsed. A probe's wall-clock
 * time still includes every moment the operating system ran something else — on a shared machine
 * running other test files that alone reached a second — so the bound is on the server's own time:
 * the CPU its main thread ran while the probe waited (from /proc, in 10 ms steps). A stalled event
 * loop is made of exactly that time; a descheduled server adds none of it. Wall-clock figures are
 * reported with a failure.
 */
const HEALTHZ_BOUND_MS = 100;
const IP_SUBJECTS = 20_000;
const REPORTS = 300;
const LINKS_PER_REPORT = 50;
/** The seeded IPs are 1.0.0.0 + g × IP_STEP for g = 1..IP_SUBJECTS: spread over most of the IPv4 space. */
const IP_STEP = 104_729;
const seededIp = (g: number) => {
  const n = 0x01000000 + g * IP_STEP;
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
};

describe(`/healthz while the worst GraphQL an account can send runs (${backendName})`, () => {
  let env: TestEnv;
  const servers = new ServerProcesses();
  let url: string;
  let key: string;
  let reportIds: string[];
  let entities: Array<{ code: string; key: string }>;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

  beforeAll(async () => {
    env = await freshEnvironment();
    const db = await openDatabase({ databaseUrl: env.env.DATABASE_URL, dataDir: env.dataDir });
    try {
      await db.migrate();
      // Developer, the cheapest score-eligible tier: the dimension reads (and the audit's `ips` of an entity) need
      // one, and no tier sets any other GraphQL limit, so this workspace can send everything a Free one can and more.
      key = (
        await createApiKey(db.prisma, resolvePepper(env.env.API_KEY_PEPPER, env.dataDir), {
          workspace: 'heavy',
          name: 'k',
          tier: 'developer',
        })
      ).secret;
      const ws = await db.prisma.workspace.findUniqueOrThrow({ where: { name: 'heavy' } });
      expect(ws.tier).toBe('developer');
      reportIds = await seedAtTheMaxima(db.prisma, ws.id);
    } finally {
      await db.close();
    }
    url = await servers.start(env.env);
    // The entities (country, region, network...) of a few seeded IPs, read through the API itself: each holds many of them.
    const sample = [1, 7_000, 14_000].map(
      (g, i) => `s${i}: ip(address: "${seededIp(g)}") { dimensions { code entity { key } } }`,
    );
    const dims = Object.values(JSON.parse((await post(`{ ${sample.join(' ')} }`)).text).data).flatMap(
      (ip: any) => ip.dimensions,
    );
    const largestFirst = ['country', 'isp', 'org', 'asn', 'region', 'city', 'subnet'];
    entities = dims
      .filter((d: any) => d.entity && d.code !== 'ip')
      .map((d: any) => ({ code: d.code, key: d.entity.key }))
      .sort((a, b) => largestFirst.indexOf(a.code) - largestFirst.indexOf(b.code));
  }, 300_000);
  afterAll(async () => {
    agent.destroy();
    await servers.stopAll();
    await env?.cleanup();
  });

  function post(query: string, variables?: unknown): Promise<{ status: number; bytes: number; text: string }> {
    const body = JSON.stringify({ query, variables });
    return new Promise((resolve, reject) => {
      const req = http.request(
        new URL('/graphql', url),
        {
          method: 'POST',
          agent,
          timeout: 120_000,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            'x-api-key': key,
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          // Kept only up to 2 KB (to show a refusal): the answers are not parsed while probing.
          let text = '';
          let bytes = 0;
          res.on('data', (c: Buffer) => {
            bytes += c.length;
            if (text.length < 2_000) text += c.toString('utf8');
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, text }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /**
   * The heaviest requests the limits let through, each grown to just under the cost budget (by the
   * server's own estimate), and the audit's two.
   */
  function worstRequests(): Array<{ name: string; query: string; variables?: unknown }> {
    const aliases = (n: number, make: (i: number) => string) =>
      `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${make(i)}`).join(' ')} }`;
    const entity = (i: number) => entities[i % entities.length]!;
    const ids = (n: number) => Array.from({ length: n }, (_, i) => reportIds[i % reportIds.length]);
    return [
      // The audit's: 400 ids, each with its texts and linked subjects.
      {
        name: 'nodes ×400 (audit)',
        query:
          'query($ids: [ID!]!) { nodes(ids: $ids) { ... on Report { details relatedSubjects { subject { key } } } } }',
        variables: { ids: ids(400) },
      },
      // The audit's: 30 aliases of `ips` on entities holding thousands of the workspace's IPs (27-29 s): each scanned them all.
      {
        name: 'ips ×30 (audit)',
        query: aliases(
          30,
          (i) =>
            `dimensionEntity(code: ${entity(i).code}, key: "${entity(i).key}") { ips(first: 5) { totalCount nodes { key } } }`,
        ),
      },
      largest('ips', QUERY_LIMITS.maxAliases, (n) => ({
        query: aliases(
          n,
          (i) =>
            `dimensionEntity(code: ${entity(i).code}, key: "${entity(i).key}") { ips(first: 100) { totalCount nodes { key } } }`,
        ),
      })),
      largest('nodes', 50, (n) => ({
        query: `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Report { title summary tags relatedSubjects(limit: ${n}) { role subject { kind key } } } } }`,
        variables: { ids: ids(QUERY_LIMITS.maxNodeIds) },
      })),
      largest('details', QUERY_LIMITS.maxAliases, (n) => ({
        query: aliases(n, () => 'reports(first: 100) { nodes { details summary } }'),
      })),
      largest('wide walk', QUERY_LIMITS.maxPageSize, (n) => ({
        query: `{ reports(first: ${n}) { nodes { id databaseId eventType outcomeCode severity status sharePolicy namespace createdAt relatedSubjects { role position subject { id databaseId kind createdAt } } } } }`,
      })),
      largest('related subjects', QUERY_LIMITS.maxPageSize, (n) => ({
        query: `{ topSubjects(limit: ${n}) { reports subject { relatedSubjects { sharedReports roles subject { databaseId kind } } } } }`,
      })),
    ];
  }

  function warmUps() {
    return worstRequests()
      .filter((r) => !r.name.startsWith('ips'))
      .map((r) => ({
        query: r.query.replace(/(first|limit): \d+/g, '$1: 1').replace(/\{ (a\d+: .*?) a1: .*\}$/, '{ $1 }'),
        variables: r.variables && { ids: reportIds.slice(0, 1) },
      }));
  }

  /** `make(n)` for the largest n (up to `max`) whose cost stays within the budget. */
  function largest(name: string, max: number, make: (n: number) => { query: string; variables?: unknown }) {
    let best: { query: string; variables?: unknown } | null = null;
    for (let n = 1; n <= max; n++) {
      const candidate = make(n);
      let cost: number;
      try {
        cost = estimateCost(schema, parse(candidate.query), null, candidate.variables).cost;
      } catch {
        break;
      }
      if (cost > QUERY_LIMITS.maxCost) break;
      best = candidate;
    }
    if (!best) throw new Error(`${name}: no size fits the budget`);
    return { name: `${name} at the budget`, ...best };
  }

  /** Starts the probe process; `stop()` ends it and returns its probes ([wall ms, server main-thread CPU ms]). */
  async function startProbe(intervalMs: number) {
    const probe = spawn(
      process.execPath,
      [
        path.resolve(import.meta.dirname, '../helpers/healthz-probe.mjs'),
        url,
        String(servers.pids()[0]),
        String(intervalMs),
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    let out = '';
    probe.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    await new Promise<void>((resolve, reject) => {
      probe.once('exit', () => reject(new Error(`the probe ended early: ${out}`)));
      const wait = () => (out.includes('ready') ? resolve() : setTimeout(wait, 20));
      wait();
    });
    return {
      async stop(): Promise<Array<[number, number]>> {
        probe.removeAllListeners('exit');
        const exited = new Promise((resolve) => probe.once('exit', resolve));
        probe.stdin.end();
        await exited;
        return JSON.parse(out.trim().split('\n').pop()!);
      },
    };
  }

  it("keeps /healthz answering within 100 ms of the server's time while they run", async () => {
    // Each request's shape once, small (not `ips`: its index is built cold, under the probes): the first
    // use of a query shape compiles Prisma's plan and V8's code, once per process.
    for (const r of warmUps()) expect((await post(r.query, r.variables)).status).toBe(200);

    const probe = await startProbe(10);
    const started = performance.now();
    const requests = worstRequests();
    const answers = await Promise.all(
      requests.map(async (r) => ({
        name: r.name,
        ...(await post(r.query, r.variables)),
        ms: performance.now() - started,
      })),
    );
    const probes = await probe.stop();

    const summary = answers
      .map(
        (a) =>
          `${a.name}: ${a.status} ${(a.bytes / 1e6).toFixed(2)} MB after ${Math.round(a.ms)} ms ${a.bytes < 2_000 ? a.text.slice(0, 200) : ''}`,
      )
      .join('\n');
    const figures = `${probes.length} probes (slowest by server time: ${JSON.stringify(
      [...probes]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 6)
        .map((p) => p.map(Math.round)),
    )}); wall-clock max ${Math.round(Math.max(...probes.map((p) => p[0])))} ms, server time max ${Math.round(Math.max(...probes.map((p) => p[1])))} ms`;
    expect(probes.length, summary).toBeGreaterThan(20);
    const held = probes.filter(([, serverMs]) => serverMs >= HEALTHZ_BOUND_MS);
    expect(held, `${figures}\n${summary}`).toEqual([]);
    // Every answer is data or a coded refusal, never a failure of the server.
    for (const a of answers) expect(a.status, summary).toBeLessThan(500);
    console.log(`${backendName}: ${figures}\n${summary}`);
  });
});

/**
 * A Free workspace filled as far as the write rules let it: 20,000 IP subjects with a rating each
 * (spread over many networks), and 300 reports with every text at its longest, 20 tags and 50 linked
 * subjects of 1,000-character keys. Written in bulk SQL (as the write paths would store it) for speed.
 */
async function seedAtTheMaxima(prisma: PrismaClient, workspaceId: number): Promise<string[]> {
  await prisma.$executeRawUnsafe(
    `
    INSERT INTO "Subject" ("workspaceId", kind, key, "createdAt")
    SELECT $1, 'ipaddress', host('1.0.0.0'::inet + g::bigint * ${IP_STEP}), now() - interval '1 hour' FROM generate_series(1, ${IP_SUBJECTS}) g`,
    workspaceId,
  );
  await prisma.$executeRawUnsafe(
    `
    INSERT INTO "Rating" ("workspaceId", "subjectId", rating, note)
    SELECT $1, id, -1, repeat('n', 1000) FROM "Subject" WHERE "workspaceId" = $1 AND kind = 'ipaddress'`,
    workspaceId,
  );
  await prisma.$executeRawUnsafe(
    `
    INSERT INTO "Subject" ("workspaceId", kind, key)
    SELECT $1, 'url', 'https://example.com/' || g || '/' || repeat('p', 1000) FROM generate_series(1, 1000) g`,
    workspaceId,
  );
  await prisma.$executeRawUnsafe(
    `
    INSERT INTO "Report" ("workspaceId", "subjectId", "eventType", "outcomeCode", severity, title, summary, details, tags, status,
                          "sharePolicy", namespace, "requestedVisibility", "effectiveVisibility", "policyNotice")
    SELECT $1, (SELECT min(id) FROM "Subject" WHERE "workspaceId" = $1 AND kind = 'url') + g % 1000, 'outcome', 'spam', 'low',
           repeat('t', 200), repeat('s', 500), repeat('d', 10000), ARRAY(SELECT repeat(chr(97 + t), 40) FROM generate_series(0, 19) t),
           '', 'clear_share', '', 'private', 'private', ''
      FROM generate_series(1, ${REPORTS}) g`,
    workspaceId,
  );
  await prisma.$executeRawUnsafe(
    `
    INSERT INTO "ReportLink" ("reportId", "subjectId", role, position)
    SELECT r.id, u.first + (r.id * 7 + p) % 1000, 'url', p
      FROM "Report" r, generate_series(0, ${LINKS_PER_REPORT - 1}) p,
           (SELECT min(id) AS first FROM "Subject" WHERE "workspaceId" = $1 AND kind = 'url') u
     WHERE r."workspaceId" = $1`,
    workspaceId,
  );
  const rows = await prisma.report.findMany({ where: { workspaceId }, select: { id: true }, orderBy: { id: 'asc' } });
  return rows.map((r) => Buffer.from(`Report:${r.id}`).toString('base64url'));
}
