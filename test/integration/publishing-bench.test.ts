/**
 * Publishing at scale: PUBLISH_BENCH_IPS (default 5,000 in the normal test run) reported IPs from 20 workspaces,
 * 70% community, plus ratings and a 20,500-entry feed: about 145,000 published entities (each
 * IP also fills its subnet, AS, org, places, in the global and its workspace's layer).
 * PUBLISH_BENCH_IPS=100000 gives about 440,000. Prints the time of each step and the cache's load
 * time and heap growth; asserts only that everything published is what the cache holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NetworkIndex } from '../../src/domain/network/index.ts';
import { publish } from '../../src/domain/publishing/publish.ts';
import { PublicationCache } from '../../src/domain/publishing/cache.ts';
import { importFeed } from '../../src/domain/feeds/store.ts';
import { parseFeedText } from '../../src/domain/feeds/parse.ts';
import { backendName } from '../helpers/backend.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/publishing-fixtures.ts';
import { sharedNetwork } from '../helpers/network.ts';

const IPS = Number(process.env.PUBLISH_BENCH_IPS ?? 5_000);
const WORKSPACES = 20;
const mb = (bytes: number) => Math.round(bytes / 1e6);

describe(`publishing ${IPS.toLocaleString('en-US')} IPs (${backendName})`, () => {
  let t: TestDatabase;
  let network: NetworkIndex;
  beforeAll(async () => {
    [t, network] = await Promise.all([openTestDatabase(), sharedNetwork()]);
    const started = performance.now();
    await t.prisma
      .$executeRaw`INSERT INTO "Workspace" ("name") SELECT 'bench-' || g FROM generate_series(1, ${WORKSPACES}) g`;
    // IPv4 addresses spread over the whole space (Knuth's multiplicative hash is a bijection on 32 bits)
    await t.prisma.$executeRaw`
      INSERT INTO "Subject" ("workspaceId", "kind", "key")
      SELECT 1 + (g % ${WORKSPACES}), 'ipaddress',
             (v >> 24) || '.' || ((v >> 16) & 255) || '.' || ((v >> 8) & 255) || '.' || (v & 255)
        FROM (SELECT g, (g::bigint * 2654435761) % 4294967296 AS v FROM generate_series(1, ${IPS}) g) s`;
    await t.prisma.$executeRaw`
      INSERT INTO "Report" ("workspaceId", "subjectId", "eventType", "outcomeCode", "severity", "title", "summary", "details",
                            "tags", "status", "sharePolicy", "namespace", "requestedVisibility", "effectiveVisibility", "policyNotice", "createdAt")
      SELECT s."workspaceId", s."id", 'observation', 'fraud_confirmed', 'high', 't', 's', 'd', '{}', 'open', 'x', '',
             v, v, '', now() - (s."id" % 90) * interval '1 day'
        FROM (SELECT *, CASE WHEN "id" % 10 < 7 THEN 'community' ELSE 'workspace' END AS v FROM "Subject") s`;
    await t.prisma.$executeRaw`
      INSERT INTO "Rating" ("workspaceId", "subjectId", "rating", "note")
      SELECT "workspaceId", "id", -1, '' FROM "Subject" WHERE "id" % 10 = 0`;
    const feed =
      Array.from({ length: 20_000 }, (_, i) => `${(i % 200) + 1}.${(i >> 8) & 255}.${i & 255}.7`).join('\n') +
      '\n' +
      Array.from({ length: 500 }, (_, i) => `${(i % 200) + 1}.${i % 256}.0.0/20`).join('\n');
    await importFeed(t.prisma, {
      name: 'bench',
      format: 'plain',
      weight: 0.8,
      source: 'bench',
      parsed: parseFeedText(feed, 'plain'),
    });
    console.log(
      `[bench ${backendName}] seeded ${IPS} reports, ${IPS / 10} ratings, 20,500 feed entries in ${Math.round(performance.now() - started)} ms`,
    );
  }, 600_000);
  afterAll(() => t?.close());

  it('publishes, and the cache loads, every summary', async () => {
    global.gc?.();
    const heap0 = process.memoryUsage().heapUsed;
    let peak = heap0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }, 50);
    const r = await publish(t.prisma, network);
    clearInterval(sampler);
    const total = r.entities.global + r.entities.contextual;
    console.log(
      `[bench ${backendName}] publish: ${total} rows (global ${r.entities.global}, contextual ${r.entities.contextual}) in ${r.ms} ms` +
        ` (gather ${r.stats.gatherMs} ms, summarise+write ${r.stats.writeMs} ms), peak heap +${mb(peak - heap0)} MB` +
        `${global.gc ? '' : ' (run with NODE_OPTIONS=--expose-gc for exact heap figures)'}`,
    );
    expect(r.entities.global).toBeGreaterThan(IPS * 0.7);

    const cache = new PublicationCache(t.prisma);
    global.gc?.();
    const heap1 = process.memoryUsage().heapUsed;
    const loadStart = performance.now();
    const snap = await cache.load();
    const loadMs = Math.round(performance.now() - loadStart);
    global.gc?.();
    console.log(
      `[bench ${backendName}] cache.load: ${snap.size} rows in ${loadMs} ms, heap +${mb(process.memoryUsage().heapUsed - heap1)} MB`,
    );
    expect(snap.size).toBe(total);

    const second = await publish(t.prisma, network, { keep: 1 });
    console.log(`[bench ${backendName}] second publish (pruning the first): ${second.ms} ms`);
    expect(await t.prisma.publishedSummary.count()).toBe(second.entities.global + second.entities.contextual);
  }, 600_000);
});
