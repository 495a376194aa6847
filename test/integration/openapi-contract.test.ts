import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { sleep } from '../helpers/eventually.ts';
import { OPENAPI_PATH, assertContract, contractProblems, documentedPath } from '../helpers/openapi-contract.ts';
import { CounterUnavailableError } from '../../src/platform/counters/types.ts';
import { riskApiClient } from '../contract/client.ts';
import type { components } from '../contract/openapi-types.ts';
import { TierCatalog } from '../../src/domain/metering/tiers.ts';
import { ScoreMeter } from '../../src/domain/metering/meter.ts';
import { OVERRIDE_LIMITS } from '../../src/domain/overrides/schemas.ts';
import { WATCH_LIMITS } from '../../src/domain/watches/schemas.ts';

/**
 * Every route of openapi.json made to answer every status it documents, each answer checked against the document
 * (body with no undocumented property, headers): the statuses a test cannot bring about are listed with the reason.
 * Faults (database dropped, counter store down, a bug) are injected into the running server's own objects.
 */
type Doc = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>>; servers: unknown };
const committed = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8')) as Doc;

const NOT_REACHED: Record<string, string> = {
  'GET /risk_api/openapi.json 503':
    'service_unavailable is answered only while the server drains (test/reliability/faults-shutdown.test.ts)',
  'GET /healthz 503':
    'service_unavailable is answered only while the server drains (test/reliability/faults-shutdown.test.ts)',
  'GET /metrics 401':
    'answered only when METRICS_TOKEN is set: test/integration/metrics.test.ts checks it against this document',
  'GET /metrics 503': 'service_unavailable is answered only while the server drains or a worker cannot be reached',
};

/** Runs `attempt` from the start of a second until one run is sent and answered within that second. */
async function withinOneSecond<T>(attempt: () => Promise<T>, tries = 30): Promise<T> {
  for (let i = 0; i < tries; i++) {
    await sleep(1000 - (Date.now() % 1000) + 5);
    const second = Math.floor(Date.now() / 1000);
    const result = await attempt();
    if (Math.floor(Date.now() / 1000) === second) return result;
  }
  throw new Error(`no attempt in ${tries} fitted in one second: too busy a machine to show a one-second burst window`);
}

describe(`openapi.json against live answers (${backendName})`, () => {
  let s: TestServer;
  const keys: Record<'developer' | 'free' | 'tiny' | 'bursty' | 'client' | 'block', string> = {
    developer: '',
    free: '',
    tiny: '',
    bursty: '',
    client: '',
    block: '',
  };
  const seen = new Set<string>();

  beforeAll(async () => {
    s = await startTestServer();
    await s.app.db.prisma.tier.createMany({
      data: [
        {
          code: 'contract-tiny',
          name: 'Tiny',
          scoreEligible: true,
          dailyLimit: 1,
          burstPerSecond: 100,
          directReportLimit: 1,
          priceCents: 0,
          position: 90,
        },
        {
          code: 'contract-bursty',
          name: 'Bursty',
          scoreEligible: true,
          dailyLimit: 1000,
          burstPerSecond: 1,
          directReportLimit: 1,
          priceCents: 0,
          position: 91,
        },
      ],
    });
    s.app.services.tiers = await TierCatalog.load(s.app.db.prisma);
    // One clock second for every score call, so a burst of two is always one.
    const now = Date.parse('2026-11-23T12:00:00.500Z');
    s.app.services.meter = new ScoreMeter(s.app.counters, () => now);
    keys.developer = (await s.createKey('contract-dev', { tier: 'developer' })).secret;
    keys.free = (await s.createKey('contract-free')).secret;
    keys.tiny = (await s.createKey('contract-tiny', { tier: 'contract-tiny' })).secret;
    keys.bursty = (await s.createKey('contract-bursty', { tier: 'contract-bursty' })).secret;
    keys.client = (await s.createKey('contract-client', { tier: 'developer' })).secret;
    // its own key: the clock stands still, and the developer tier's burst of 5 a second is per key
    keys.block = (await s.createKey('contract-block', { tier: 'developer' })).secret;
  });
  afterAll(() => s?.close());

  type Call = { method?: string; key?: string | null; headers?: Record<string, string>; body?: unknown; raw?: string };
  /** One request; its answer is checked against the document and its (operation, status) counted as reached. */
  async function call(path: string, { method = 'POST', key = keys.developer, headers = {}, body, raw }: Call = {}) {
    const text = raw ?? (body === undefined ? undefined : JSON.stringify(body));
    const res = await fetch(s.url + path, {
      method,
      headers: {
        ...(text === undefined ? {} : { 'content-type': 'application/json' }),
        ...(key ? { 'x-api-key': key } : {}),
        ...headers,
      },
      ...(text === undefined ? {} : { body: text }),
    });
    const answer = {
      method,
      path: path.split('?', 1)[0]!,
      status: res.status,
      headers: res.headers,
      text: await res.text(),
    };
    assertContract(answer);
    const route = documentedPath(answer.path);
    const item = route ? committed.paths[route]! : {};
    // A method the path does not answer reaches the 405 every operation of the path documents.
    for (const m of item[method.toLowerCase()]
      ? [method.toLowerCase()]
      : Object.keys(item).filter((k) => k !== 'parameters'))
      seen.add(`${m.toUpperCase()} ${route} ${res.status}`);
    return { ...answer, json: () => JSON.parse(answer.text) };
  }

  /** Runs `work` while `object[name]` is replaced. */
  async function patched<T extends object, K extends keyof T>(
    object: T,
    name: K,
    replacement: T[K],
    work: () => Promise<void>,
  ) {
    const original = object[name];
    object[name] = replacement;
    try {
      await work();
    } finally {
      object[name] = original;
    }
  }

  it("serves the committed document, with the server's own BASE_URL as its server", async () => {
    const served = (await call('/risk_api/openapi.json', { method: 'GET', key: null })).json() as Doc;
    expect(served.servers).toEqual([{ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:/) }]);
    expect({ ...served, servers: committed.servers }).toEqual(committed);
  });

  it("answers every route's successes as documented", async () => {
    expect(
      (await call('/risk_api/rate/', { body: { ip: '203.0.113.9', rating: -1, note: 'card testing' } })).status,
    ).toBe(201);
    const rate = { ip: '203.0.113.9', rating: 0 };
    for (const expected of [201, 200])
      expect(
        (await call('/risk_api/rate/', { headers: { 'idempotency-key': 'contract-rate' }, body: rate })).status,
      ).toBe(expected);
    const report = {
      kind: 'ipaddress',
      key: '9.9.9.9',
      outcome_code: 'spam',
      related_subjects: [{ kind: 'domain', key: 'spam.example', role: 'domain' }],
    };
    for (const expected of [201, 200])
      expect(
        (await call('/risk_api/report/', { headers: { 'idempotency-key': 'contract-report' }, body: report })).status,
      ).toBe(expected);
    expect(
      (await call('/risk_api/report/', { body: { ...report, severity: 'critical', status: 'open', tags: ['Spam'] } }))
        .status,
    ).toBe(201);
    const ndjson = { 'content-type': 'application/x-ndjson' };
    const bulk = await call('/risk_api/report/bulk/', {
      headers: ndjson,
      raw: `${JSON.stringify({ ...report, idempotency_key: 'contract-bulk' })}\n{"kind":\n{"kind":"ipaddress","key":"x","outcome_code":"spam"}\n`,
    });
    expect([bulk.status, bulk.json().totals]).toEqual([200, { lines: 3, created: 1, replayed: 0, errors: 2 }]);
    const csv = await call('/risk_api/report/bulk/', {
      headers: { 'content-type': 'text/csv' },
      raw: 'kind,key,outcome_code,idempotency_key\r\nipaddress,9.9.9.9,spam,contract-csv\r\nipaddress,9.9.9.9,spam,contract-csv\r\nipaddress,9.9.9.9,legitimate,contract-csv\r\n',
    });
    expect(csv.json().results.map((r: { status: string }) => r.status)).toEqual(['created', 'replayed', 'error']);
    expect((await call('/risk_api/score/', { body: { ip: '9.9.9.9' } })).status).toBe(200);
    expect(
      (
        await call('/risk_api/score/batch/', {
          body: { ips: ['9.9.9.9', 'not-an-ip', '2001:4860:4860::8888', '9.9.9.9'] },
        })
      ).status,
    ).toBe(200);
    expect((await call('/risk_api/dimensions/', { body: { ip: '10.1.2.3' } })).status).toBe(200);
    // a block inside one subnet (networks and signal), one spanning several, a page with a next cursor, IPv6
    for (const key of ['9.9.9.8', '9.9.9.9'])
      expect(
        (await call('/risk_api/report/', { key: keys.block, body: { kind: 'ipaddress', key, outcome_code: 'spam' } }))
          .status,
      ).toBe(201);
    const block = await call('/risk_api/check_block/', { key: keys.block, body: { cidr: '9.9.9.7/24', limit: 1 } });
    expect([
      block.status,
      block.json().block.networks.subnet.key,
      block.json().ips.items.length,
      block.json().ips.next_cursor,
    ]).toEqual([200, '9.9.9.0/24', 1, '9.9.9.8']);
    expect(
      (
        await call('/risk_api/check_block/', {
          key: keys.block,
          body: { cidr: '9.9.9.0/24', cursor: block.json().ips.next_cursor },
        })
      ).json().ips.items,
    ).toEqual([expect.objectContaining({ ip: '9.9.9.9' })]);
    expect(
      (await call('/risk_api/check_block/', { key: keys.block, body: { cidr: '203.0.0.0/16' } })).json().block.networks
        .reason,
    ).toEqual(expect.any(String));
    expect((await call('/risk_api/check_block/', { key: keys.block, body: { cidr: '2001:4860::/48' } })).status).toBe(
      200,
    );
    expect((await call('/risk_api/dimensions/', { body: { ip: '2001:4860:4860::8888' } })).status).toBe(200);

    const page = await call('/risk_api/export?outcome_code=spam,fraud_watch&limit=1', { method: 'GET' });
    expect([page.status, page.headers.get('link')]).toEqual([200, expect.stringContaining('rel="next"')]);
    const next = await call(`/risk_api/export/?format=csv&cursor=${page.headers.get('x-next-cursor')}`, {
      method: 'GET',
    });
    expect([next.status, next.headers.get('content-type')]).toEqual([200, 'text/csv; charset=utf-8']);
    const posted = await call('/risk_api/export/', { body: { kind: ['ipaddress'], limit: 1 } });
    expect([posted.status, posted.headers.has('x-next-cursor'), posted.headers.has('link')]).toEqual([
      200,
      true,
      false,
    ]);

    // override rules: created, applied in a score answer (its override object), listed, exported, expired
    const rule = await call('/risk_api/overrides/', {
      body: {
        target: '9.9.9.10',
        action: 'deny',
        reason: 'contract',
        expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      },
    });
    expect(rule.status).toBe(201);
    expect((await call('/risk_api/score/', { body: { ip: '9.9.9.10' } })).json().override).toMatchObject({
      rule_id: rule.json().rule.id,
      action: 'deny',
    });
    expect(
      (await call('/risk_api/score/batch/', { body: { ips: ['9.9.9.10'] } })).json().results[0].override,
    ).toMatchObject({ action: 'deny' });
    expect((await call('/risk_api/overrides/list/', { body: { state: 'all', limit: 1 } })).json().rules).toHaveLength(
      1,
    );
    expect(
      (
        await call('/risk_api/overrides/update/', {
          body: { id: rule.json().rule.id, reason: 'contract, confirmed', expires_at: null },
        })
      ).json().rule.expires_at,
    ).toBeNull();
    expect((await call('/risk_api/overrides/expire/', { body: { id: rule.json().rule.id } })).json().rule.active).toBe(
      false,
    );
    const trail = await call('/risk_api/overrides/audit/', { body: { limit: 1 } });
    expect([trail.status, trail.headers.get('x-next-cursor')]).toEqual([200, expect.any(String)]);

    // watches: created, listed, updated, deleted
    const watch = await call('/risk_api/watches/', {
      body: { target: '9.9.9.0/24', score_threshold: 60, note: 'contract' },
    });
    expect(watch.status).toBe(201);
    expect((await call('/risk_api/watches/list/', { body: { limit: 1 } })).json().watches).toHaveLength(1);
    expect(
      (await call('/risk_api/watches/update/', { body: { id: watch.json().watch.id, score_threshold: null } })).json()
        .watch.score_threshold,
    ).toBeNull();
    expect((await call('/risk_api/watches/delete/', { body: { id: watch.json().watch.id } })).json().watch.id).toBe(
      watch.json().watch.id,
    );

    for (const path of ['/healthz', '/readyz', '/metrics'])
      expect((await call(path, { method: 'GET', key: null })).status).toBe(200);
  });

  it('answers every client error as documented', async () => {
    const routes = [
      ['/risk_api/score/', { ip: '9.9.9.9' }],
      ['/risk_api/score/batch/', { ips: ['9.9.9.9'] }],
      ['/risk_api/check_block/', { cidr: '9.9.9.0/24' }],
      ['/risk_api/dimensions/', { ip: '9.9.9.9' }],
      ['/risk_api/rate/', { ip: '9.9.9.9', rating: 1 }],
      ['/risk_api/report/', { kind: 'ipaddress', key: '9.9.9.9', outcome_code: 'spam' }],
      ['/risk_api/export/', {}],
      ['/risk_api/overrides/', { target: '9.9.9.11', action: 'deny', reason: 'x' }],
      ['/risk_api/overrides/list/', {}],
      ['/risk_api/overrides/expire/', { id: 1 }],
      ['/risk_api/overrides/update/', { id: 1, reason: 'x' }],
      ['/risk_api/overrides/audit/', {}],
      ['/risk_api/watches/', { target: '9.9.9.11' }],
      ['/risk_api/watches/list/', {}],
      ['/risk_api/watches/update/', { id: 1, note: 'x' }],
      ['/risk_api/watches/delete/', { id: 1 }],
    ] as const;
    for (const [path, body] of routes) {
      expect((await call(path, { raw: '{"ip": ' })).status).toBe(400);
      expect((await call(path, { body: { ...body, unknown_field: 1 } })).status).toBe(400);
      expect(
        (
          await call(path, {
            body,
            key: null,
            headers: { 'x-api-key': keys.developer, authorization: `Bearer ${keys.free}` },
          })
        ).status,
      ).toBe(400);
      expect((await call(path, { body, key: null })).status).toBe(401);
      expect((await call(path, { body, key: 'rk_AAAAAAAA_notakey' })).status).toBe(401);
      expect((await call(path, { method: 'PUT', body })).status).toBe(405);
      expect((await call(path, { raw: JSON.stringify({ ...body, note: 'x'.repeat(70_000) }) })).status).toBe(413);
      expect((await call(path, { raw: JSON.stringify(body), headers: { 'content-type': 'text/plain' } })).status).toBe(
        415,
      );
    }
    const ndjson = { 'content-type': 'application/x-ndjson' };
    const line = '{"kind":"ipaddress","key":"9.9.9.9","outcome_code":"spam"}\n';
    for (const [call_, expected] of [
      [{ headers: ndjson, raw: '\n\n' }, 400],
      [{ headers: { 'content-type': 'text/csv' }, raw: 'kind,key,colour\n' }, 400],
      [{ headers: { ...ndjson, 'idempotency-key': 'whole' }, raw: line }, 400],
      [{ headers: ndjson, raw: line, key: null }, 401],
      [{ headers: ndjson, raw: line, key: 'rk_AAAAAAAA_notakey' }, 401],
      [{ headers: ndjson, raw: line, method: 'PUT' }, 405],
      [{ headers: ndjson, raw: line.repeat(10_001) }, 413],
      [{ raw: line }, 415],
    ] as const)
      expect((await call('/risk_api/report/bulk/', call_)).status).toBe(expected);
    expect((await call('/risk_api/export/?limit=0', { method: 'GET' })).status).toBe(400);
    expect((await call('/risk_api/export/', { method: 'GET', key: null })).status).toBe(401);
    expect((await call('/risk_api/openapi.json', { key: null })).status).toBe(405);
    expect((await call('/metrics', { key: null })).status).toBe(405);
    expect(
      (await call('/metrics', { method: 'GET', key: null, headers: { 'x-forwarded-for': '198.51.100.1' } })).status,
    ).toBe(403);
    expect(
      (await call('/risk_api/rate/', { headers: { 'idempotency-key': 'bad key' }, body: { ip: '9.9.9.9', rating: 1 } }))
        .status,
    ).toBe(400);
    expect(
      (
        await call('/risk_api/rate/', {
          headers: { 'idempotency-key': 'contract-rate' },
          body: { ip: '9.9.9.9', rating: 1 },
        })
      ).status,
    ).toBe(409);
    expect(
      (
        await call('/risk_api/report/', {
          headers: { 'idempotency-key': 'contract-report' },
          body: { kind: 'ipaddress', key: '9.9.9.9', outcome_code: 'legitimate' },
        })
      ).status,
    ).toBe(409);
    for (const path of ['/risk_api/score/', '/risk_api/dimensions/'])
      expect((await call(path, { key: keys.free, body: { ip: '9.9.9.9' } })).status).toBe(403);
    expect((await call('/risk_api/score/batch/', { key: keys.free, body: { ips: ['9.9.9.9'] } })).status).toBe(403);
    expect((await call('/risk_api/check_block/', { key: keys.free, body: { cidr: '9.9.9.0/24' } })).status).toBe(403);
    expect((await call('/risk_api/check_block/', { body: { cidr: '9.8.0.0/15' } })).json()).toMatchObject({
      error: 'invalid_request',
      details: [{ field: 'cidr' }],
    });
    // more distinct IPs than the tier's burst limit (developer: 5 per second) can never pass: 400, not a 429 to retry
    expect(
      (
        await call('/risk_api/score/batch/', {
          body: { ips: ['1.0.0.1', '1.0.0.2', '1.0.0.3', '1.0.0.4', '1.0.0.5', '1.0.0.6'] },
        })
      ).json(),
    ).toMatchObject({ error: 'invalid_request' });
    expect((await call('/risk_api/nothing/', { body: {} })).status).toBe(404);
    // overrides: a second rule on a target, the cap, a rule of no one's, one no longer in force
    const first = await call('/risk_api/overrides/', {
      key: keys.block,
      body: { target: '9.9.8.0/24', action: 'adjust', points: 10, reason: 'x' },
    });
    expect(
      (
        await call('/risk_api/overrides/', {
          key: keys.block,
          body: { target: '9.9.8.0/24', action: 'allow', reason: 'y' },
        })
      ).json(),
    ).toMatchObject({ error: 'override_exists' });
    expect(
      (await call('/risk_api/overrides/expire/', { key: keys.block, body: { id: 2_000_000_000 } })).json(),
    ).toMatchObject({ error: 'not_found' });
    expect(
      (await call('/risk_api/overrides/expire/', { key: keys.block, body: { id: first.json().rule.id } })).status,
    ).toBe(200);
    expect(
      (await call('/risk_api/overrides/expire/', { key: keys.block, body: { id: first.json().rule.id } })).json(),
    ).toMatchObject({ error: 'override_not_active' });
    expect(
      (
        await call('/risk_api/overrides/update/', { key: keys.block, body: { id: first.json().rule.id, note: 'late' } })
      ).json(),
    ).toMatchObject({ error: 'override_not_active' });
    expect(
      (
        await call('/risk_api/overrides/update/', { key: keys.block, body: { id: 2_000_000_000, note: 'none' } })
      ).json(),
    ).toMatchObject({ error: 'not_found' });
    const workspace = await s.app.db.prisma.workspace.findUniqueOrThrow({ where: { name: 'contract-block' } });
    await s.app.db.prisma.overrideRule.createMany({
      data: Array.from({ length: OVERRIDE_LIMITS.activeRules }, (_, i) => ({
        workspaceId: workspace.id,
        targetKind: 'ip',
        target: `10.${i >> 8}.${i & 255}.1`,
        action: 'deny',
        reason: 'cap',
        authorKind: 'api_key',
        authorId: 1,
        authorLabel: 'seed',
        writtenXid: 0n,
      })),
    });
    expect(
      (
        await call('/risk_api/overrides/', {
          key: keys.block,
          body: { target: '9.9.7.1', action: 'deny', reason: 'one too many' },
        })
      ).json(),
    ).toMatchObject({ error: 'override_limit_reached' });
    // watches: a second watch on a target, the cap, a watch of no one's
    expect((await call('/risk_api/watches/', { key: keys.block, body: { target: '9.9.8.0/24' } })).status).toBe(201);
    expect(
      (await call('/risk_api/watches/', { key: keys.block, body: { target: '9.9.8.0/24' } })).json(),
    ).toMatchObject({ error: 'watch_exists' });
    expect(
      (await call('/risk_api/watches/update/', { key: keys.block, body: { id: 2_000_000_000, note: 'none' } })).json(),
    ).toMatchObject({ error: 'not_found' });
    expect(
      (await call('/risk_api/watches/delete/', { key: keys.block, body: { id: 2_000_000_000 } })).json(),
    ).toMatchObject({ error: 'not_found' });
    await s.app.db.prisma.watch.createMany({
      data: Array.from({ length: WATCH_LIMITS.perWorkspace }, (_, i) => ({
        workspaceId: workspace.id,
        targetKind: 'subject',
        target: `domain:cap-${i}.example`,
        authorKind: 'api_key',
        authorId: 1,
        authorLabel: 'seed',
      })),
    });
    expect((await call('/risk_api/watches/', { key: keys.block, body: { target: '9.9.7.1' } })).json()).toMatchObject({
      error: 'watch_limit_reached',
    });
  }, 300_000); // ~150 round trips, some with bodies past the limits: over 90 s on a busy 2-core machine

  it('answers an exhausted quota and a burst with 429, its headers and body', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++)
      statuses.push((await call('/risk_api/score/', { key: keys.tiny, body: { ip: '9.9.9.9' } })).status);
    expect(statuses).toEqual([200, 429]);
    // The burst: one call a second, counted in fixed seconds of the server's clock (this machine's). A second call,
    // the batch and the block check in the same second are refused; the attempt counts only when all of them were
    // sent and answered within one second (on a busy machine it is tried again at the next).
    const burst = await withinOneSecond(async () => ({
      scores: [
        (await call('/risk_api/score/', { key: keys.bursty, body: { ip: '9.9.9.9' } })).status,
        (await call('/risk_api/score/', { key: keys.bursty, body: { ip: '9.9.9.9' } })).status,
      ],
      batch: (await call('/risk_api/score/batch/', { key: keys.bursty, body: { ips: ['9.9.9.9'] } })).json(),
      block: (await call('/risk_api/check_block/', { key: keys.bursty, body: { cidr: '9.9.9.0/24' } })).json(),
    }));
    expect(burst.scores).toEqual([200, 429]);
    expect(burst.batch).toMatchObject({ error: 'rate_limited' });
    expect(burst.block).toMatchObject({ error: 'rate_limited' });
    // the tiny key's day is used up
    expect((await call('/risk_api/score/batch/', { key: keys.tiny, body: { ips: ['9.9.9.9'] } })).json()).toMatchObject(
      { error: 'quota_exceeded' },
    );
    expect(
      (await call('/risk_api/check_block/', { key: keys.tiny, body: { cidr: '9.9.9.0/24' } })).json(),
    ).toMatchObject({ error: 'quota_exceeded' });
  });

  it('answers faults with 500 and 503 as documented', async () => {
    const routes = [
      ['POST', '/risk_api/score/'],
      ['POST', '/risk_api/score/batch/'],
      ['POST', '/risk_api/check_block/'],
      ['POST', '/risk_api/dimensions/'],
      ['POST', '/risk_api/rate/'],
      ['POST', '/risk_api/report/'],
      ['GET', '/risk_api/export/'],
      ['POST', '/risk_api/export/'],
      ['POST', '/risk_api/report/bulk/'],
      ['POST', '/risk_api/overrides/'],
      ['POST', '/risk_api/overrides/list/'],
      ['POST', '/risk_api/overrides/expire/'],
      ['POST', '/risk_api/overrides/update/'],
      ['POST', '/risk_api/overrides/audit/'],
      ['POST', '/risk_api/watches/'],
      ['POST', '/risk_api/watches/list/'],
      ['POST', '/risk_api/watches/update/'],
      ['POST', '/risk_api/watches/delete/'],
    ] as const;
    const verifier = s.app.verifier;
    await patched(
      verifier,
      'verify',
      async () => {
        throw new Error('injected bug');
      },
      async () => {
        for (const [method, path] of routes)
          expect((await call(path, { method, body: method === 'POST' ? {} : undefined })).status).toBe(500);
      },
    );
    await patched(
      verifier,
      'verify',
      async () => {
        throw Object.assign(new Error('injected drop'), { code: 'P1017' });
      },
      async () => {
        for (const [method, path] of routes)
          expect((await call(path, { method, body: method === 'POST' ? {} : undefined })).status).toBe(503);
      },
    );
    await patched(
      s.app.counters,
      'meterCall',
      async () => {
        throw new CounterUnavailableError('injected outage');
      },
      async () => {
        expect((await call('/risk_api/score/', { body: { ip: '9.9.9.9' } })).json()).toMatchObject({
          error: 'quota_unavailable',
        });
        expect((await call('/risk_api/score/batch/', { body: { ips: ['9.9.9.9'] } })).json()).toMatchObject({
          error: 'quota_unavailable',
        });
        expect((await call('/risk_api/check_block/', { body: { cidr: '9.9.9.0/24' } })).json()).toMatchObject({
          error: 'quota_unavailable',
        });
      },
    );
    await patched(
      s.app.counters,
      'ping',
      async () => {
        throw new CounterUnavailableError('injected outage');
      },
      async () => {
        expect((await call('/readyz', { method: 'GET', key: null })).json()).toMatchObject({
          ok: false,
          checks: { counters: 'unreachable' },
        });
      },
    );
  });

  it('answers the blocklist (a GET of formats of its own) as documented, 304 and refusals included', async () => {
    const list = (query = '', more: Call = {}) => call(`/risk_api/blocklist/${query}`, { method: 'GET', ...more });
    const first = await list('?format=json');
    expect(first.status).toBe(200);
    expect(first.json()).toMatchObject({ ok: true, endpoint: 'blocklist' });
    const text = await list();
    expect(text.status).toBe(200);
    const etag = text.headers.get('etag')!;
    expect((await list('', { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await list('?level=severe')).json()).toMatchObject({ error: 'invalid_request' });
    expect((await list('', { key: null })).status).toBe(401);
    expect((await list('', { key: keys.free })).json()).toMatchObject({ error: 'tier_not_eligible' });
    expect((await list('', { key: keys.tiny })).json()).toMatchObject({ error: 'quota_exceeded' });
    expect((await call('/risk_api/blocklist/', { body: {} })).status).toBe(405);
    const verifier = s.app.verifier;
    await patched(
      verifier,
      'verify',
      async () => {
        throw new Error('injected bug');
      },
      async () => expect((await list()).status).toBe(500),
    );
    await patched(
      s.app.counters,
      'meterCall',
      async () => {
        throw new CounterUnavailableError('injected outage');
      },
      async () => expect((await list()).json()).toMatchObject({ error: 'quota_unavailable' }),
    );
  });

  it('reached every status of every route the document lists, but those it names as unreachable here', () => {
    const documented = Object.entries(committed.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => method !== 'parameters')
        .flatMap(([method, op]) =>
          Object.keys(op.responses).map((status) => `${method.toUpperCase()} ${path} ${status}`),
        ),
    );
    expect(documented.filter((d) => !seen.has(d)).sort()).toEqual(Object.keys(NOT_REACHED).sort());
    expect([...seen].filter((d) => !documented.includes(d))).toEqual([]);
  });

  it('the checker refuses what the document does not say', () => {
    const headers = new Headers({ 'content-type': 'application/json', 'x-request-id': 'r' });
    const rate = {
      ok: true,
      endpoint: 'rate',
      quota: { counted: false, reason: 'free_endpoint' },
      report: { ip: '9.9.9.9', rating: 1, created_at: '2026-11-23T10:04:00.000Z' },
    };
    expect(
      contractProblems({ method: 'POST', path: '/risk_api/rate/', status: 201, headers, text: JSON.stringify(rate) }),
    ).toEqual([]);
    expect(
      contractProblems({
        method: 'POST',
        path: '/risk_api/rate/',
        status: 201,
        headers,
        text: JSON.stringify({ ...rate, extra: 1 }),
      }),
    ).toHaveLength(1);
    expect(
      contractProblems({ method: 'POST', path: '/risk_api/rate/', status: 200, headers, text: JSON.stringify(rate) }),
    ).toHaveLength(1); // Idempotent-Replayed missing
    expect(
      contractProblems({ method: 'POST', path: '/risk_api/rate/', status: 418, headers, text: '{}' }),
    ).toHaveLength(1);
  });

  describe('the typed client generated from it (test/contract/: openapi-typescript + openapi-fetch)', () => {
    const api = () => riskApiClient(s.url, keys.client);

    it('rates, reports and scores with typed bodies and answers', async () => {
      const rated = await api().POST('/risk_api/rate/', {
        body: { ip: '203.0.113.9', rating: -1, note: 'card testing' },
      });
      expect(rated.response.status).toBe(201);
      expect(rated.data?.report).toMatchObject({ ip: '203.0.113.9', rating: -1 });

      const report: components['schemas']['ReportRequest'] = {
        kind: 'ipaddress',
        key: '203.0.113.9',
        outcome_code: 'fraud_watch',
        severity: 'high',
        related_subjects: [{ kind: 'email', key: 'mule@example.com', role: 'email' }],
      };
      const params = { header: { 'Idempotency-Key': 'typed-client-1' } };
      const reported = await api().POST('/risk_api/report/', { params, body: report });
      expect([reported.response.status, reported.data?.report.outcome_code]).toEqual([201, 'fraud_watch']);
      const replayed = await api().POST('/risk_api/report/', { params, body: report });
      expect([
        replayed.response.status,
        replayed.response.headers.get('idempotent-replayed'),
        replayed.data?.report.id,
      ]).toEqual([200, 'true', reported.data?.report.id]);

      const scored = await api().POST('/risk_api/score/', { body: { ip: '203.0.113.9' } });
      expect(scored.response.status).toBe(200);
      const dimensions = scored.data?.score.dimensions.map((d) => d.code);
      expect(dimensions).toEqual(['ip', 'subnet', 'isp', 'asn', 'org', 'city', 'region', 'country']);
      expect(scored.data?.workspace_memory.ratings.bad).toBe(1);
      expect(Number(scored.response.headers.get('ratelimit-remaining'))).toBe(scored.data?.quota.remaining);

      const batch = await api().POST('/risk_api/score/batch/', { body: { ips: ['203.0.113.9', 'nope'] } });
      expect(batch.response.status).toBe(200);
      const [scoredItem, invalid] = batch.data?.results ?? [];
      expect(scoredItem?.ok && scoredItem.workspace_memory.ratings.bad).toBe(1);
      expect(invalid && !invalid.ok && invalid.error).toBe('invalid_ip');

      const block = await api().POST('/risk_api/check_block/', { body: { cidr: '203.0.113.0/24', limit: 10 } });
      expect(block.response.status).toBe(200);
      expect(block.data?.ips.items.map((i) => [i.ip, i.ratings.bad])).toEqual([['203.0.113.9', 1]]);
    });

    it('types the refusals as the Error body', async () => {
      // @ts-expect-error rating is -1, 0 or 1: the compiler refuses 5 before the server does
      const refused = await api().POST('/risk_api/rate/', { body: { ip: '203.0.113.9', rating: 5 } });
      expect(refused.response.status).toBe(400);
      expect(refused.error?.error).toBe('invalid_request');
      expect(refused.error?.details?.map((d) => d.field)).toEqual(['rating']);
    });
  });
});
