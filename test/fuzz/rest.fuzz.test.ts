import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import {
  BAD_UTF8,
  FUZZ_REPORT,
  FUZZ_RUNS,
  anyJson,
  authHeaders,
  brokenJsonText,
  contentType,
  fuzzParameters,
  fuzzTimeout,
  hugeText,
  ipCase,
  keyHeaders,
  canonicalIpv6,
  mutatedObject,
  oddString,
  rateFields,
  reportBody,
  wrongValue,
  type IpCase,
  type KeyHeaders,
} from './arbitraries.ts';
import {
  Tally,
  assertCodedRestError,
  assertRestAnswer,
  closeClient,
  describeAnswer,
  send,
  type Answer,
} from './client.ts';

/**
 * Every REST endpoint under hostile bodies and headers (FUZZ_RUNS cases each). Every answer is
 * a documented success or a coded error, never a 5xx or a hang; a refused score leaves the
 * quota where it was, a refused rate/report writes no row, the free reads count nothing.
 */

type Body = { kind: 'json'; value: unknown } | { kind: 'text'; text: string } | { kind: 'bytes'; bytes: Buffer };
type Case<B extends Body = Body> = { key: KeyHeaders; type: string | null; body: B; odd: string };

function encode(body: Body): Buffer {
  if (body.kind === 'bytes') return body.bytes;
  return Buffer.from(body.kind === 'text' ? body.text : JSON.stringify(body.value), 'utf8');
}

/** The JSON text of `value` with non-UTF-8 bytes inside its last string. */
const withBadBytes = (value: unknown) =>
  fc.constantFrom(...BAD_UTF8).map((bad): Body => {
    const text = Buffer.from(JSON.stringify(value), 'utf8');
    const at = text.lastIndexOf('"');
    return {
      kind: 'bytes',
      bytes: at < 0 ? Buffer.concat([text, bad]) : Buffer.concat([text.subarray(0, at), bad, text.subarray(at)]),
    };
  });

/** Bodies for an endpoint: mostly its own shape (so validation runs deep), then anything. */
function bodies(own: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Body> {
  return fc.oneof(
    { weight: 12, arbitrary: own.map((value): Body => ({ kind: 'json', value })) },
    { weight: 2, arbitrary: anyJson.map((value): Body => ({ kind: 'json', value })) },
    { weight: 2, arbitrary: brokenJsonText.map((text): Body => ({ kind: 'text', text })) },
    { weight: 1, arbitrary: hugeText().map((text): Body => ({ kind: 'text', text })) },
    { weight: 1, arbitrary: own.chain(withBadBytes) },
  );
}

const request = <B extends Body>(body: fc.Arbitrary<B>): fc.Arbitrary<Case<B>> =>
  fc.record({ key: keyHeaders, type: contentType, body, odd: oddString(3) });
/** Headers of a request whose body comes with its own expectations. */
const envelope = fc.record({ key: keyHeaders, type: contentType, odd: oddString(3) });

/** A request the server must judge on its body alone: the right key, a JSON content type, a JSON body. */
const clean = (c: Case) =>
  (c.key === 'good' || c.key === 'bearer') &&
  c.type !== null &&
  /^application\/json\s*(;|$)/i.test(c.type) &&
  c.body.kind === 'json';

describe(`REST fuzz (${backendName}), ${FUZZ_RUNS} cases per endpoint`, () => {
  let s: TestServer;
  let secret: string;
  let quotaUsed: () => Promise<number>;
  const tally = new Tally();
  const counts = async () => {
    const p = s.app.db.prisma;
    const [ratings, reports, subjects, links, idempotency] = await Promise.all([
      p.rating.count(),
      p.report.count(),
      p.subject.count(),
      p.reportLink.count(),
      p.idempotencyRecord.count(),
    ]);
    return { ratings, reports, subjects, links, idempotency };
  };

  beforeAll(async () => {
    s = await startTestServer();
    // Enterprise: score is eligible and its burst (500/s) and day (5,000,000) are out of reach, so refusals come from the input.
    secret = (await s.createKey('fuzz-rest', { tier: 'enterprise' })).secret;
    const ws = await s.app.db.prisma.workspace.findUniqueOrThrow({ where: { name: 'fuzz-rest' } });
    const tier = s.app.services.tiers.get('enterprise');
    quotaUsed = async () => (await s.app.services.meter.peek(ws.id, tier)).usedToday;
  });
  afterAll(async () => {
    if (FUZZ_REPORT) console.log(tally.table(`REST fuzz, ${backendName}, FUZZ_RUNS=${FUZZ_RUNS}`));
    closeClient();
    await s?.close();
  });

  const post = (path: string, c: Case, extra: Record<string, string> = {}) => {
    const headers: Record<string, string | string[]> = { ...authHeaders(c.key, secret, c.odd), ...extra };
    if (c.type !== null) headers['content-type'] = c.type;
    return send(s.url, 'POST', path, headers, encode(c.body));
  };
  const show = (c: Case) =>
    JSON.stringify({
      key: c.key,
      type: c.type,
      body:
        c.body.kind === 'bytes'
          ? c.body.bytes.toString('latin1').slice(0, 300)
          : c.body.kind === 'text'
            ? c.body.text.slice(0, 300)
            : c.body.value,
    }).slice(0, 600);

  /** The verdict the IP rules give, checked when the request is clean and the body is exactly `{ ip }`. */
  function checkIpVerdict(a: Answer, c: Case, ip: IpCase, successIp: (body: any) => unknown) {
    if (!clean(c) || ip.expect === null) return;
    const value = (c.body as { value: Record<string, unknown> }).value;
    if (Object.keys(value).length !== 1 || value.ip !== ip.text) return;
    if (ip.expect.valid) {
      expect(
        a.status,
        `${JSON.stringify(ip.text)} must be accepted as ${ip.expect.canonical}: ${describeAnswer(a)}`,
      ).toBeLessThan(300);
      expect(successIp(a.json)).toBe(ip.expect.canonical);
    } else {
      expect(a.status, `${JSON.stringify(ip.text)} must be refused: ${describeAnswer(a)}`).toBe(400);
      expect((a.json as any).details.map((d: { field: string }) => d.field)).toContain('ip');
    }
  }

  const ipBody = fc.oneof(
    { weight: 10, arbitrary: ipCase.map((ip) => ({ body: { kind: 'json' as const, value: { ip: ip.text } }, ip })) },
    {
      weight: 6,
      arbitrary: bodies(mutatedObject({ ip: ipCase.map((c) => c.text) })).map((body) => ({
        body,
        ip: { text: '', expect: null } as IpCase,
      })),
    },
  );

  it(
    'POST /risk_api/score/: a score or a coded error; a refused call leaves the quota unchanged',
    async () => {
      await fc.assert(
        fc.asyncProperty(envelope, ipBody, async (c0, chosen) => {
          const c: Case = { ...c0, body: chosen.body };
          const before = await quotaUsed();
          const a = await post('/risk_api/score/', c);
          const label = assertRestAnswer(a, 'score', show(c));
          tally.add('POST /risk_api/score/', a.status, label);
          const after = await quotaUsed();
          if (a.status === 200) {
            expect(after, `a served score counts once: ${show(c)}`).toBe(before + 1);
            expect((a.json as any).quota.used_today).toBe(after);
          } else {
            expect(after, `a refused score must not count: ${show(c)} → ${describeAnswer(a)}`).toBe(before);
          }
          checkIpVerdict(a, c, chosen.ip, (b) => b.query.ip);
        }),
        fuzzParameters(),
      );
    },
    fuzzTimeout(40),
  );

  /** Lists of IPs: mostly short (so each case is quick), sometimes around the 100-item bound, with repeats. */
  const ipList = fc.oneof(
    { weight: 8, arbitrary: fc.array(ipCase, { maxLength: 12 }) },
    {
      weight: 2,
      arbitrary: fc
        .array(ipCase, { minLength: 1, maxLength: 4 })
        .chain((pool) =>
          fc.constantFrom(99, 100, 101).map((n) => Array.from({ length: n }, (_, i) => pool[i % pool.length]!)),
        ),
    },
  );
  const batchBody = fc.oneof(
    {
      weight: 10,
      arbitrary: ipList.map((ips) => ({
        body: { kind: 'json' as const, value: { ips: ips.map((ip) => ip.text) } },
        ips,
      })),
    },
    {
      weight: 6,
      arbitrary: bodies(
        mutatedObject({
          ips: fc.array(
            ipCase.map((c) => c.text),
            { maxLength: 6 },
          ),
        }),
      ).map((body) => ({ body, ips: null })),
    },
  );

  it(
    'POST /risk_api/score/batch/: one result per item in order, counted once per distinct valid IP, or a coded error counting nothing',
    async () => {
      await fc.assert(
        fc.asyncProperty(envelope, batchBody, async (c0, chosen) => {
          const c: Case = { ...c0, body: chosen.body };
          const before = await quotaUsed();
          const a = await post('/risk_api/score/batch/', c);
          const label = assertRestAnswer(a, 'score_batch', show(c));
          tally.add('POST /risk_api/score/batch/', a.status, label);
          const after = await quotaUsed();
          if (a.status !== 200) {
            expect(after, `a refused batch must not count: ${show(c)} → ${describeAnswer(a)}`).toBe(before);
            return;
          }
          const body = a.json as any;
          const scored = new Set(body.results.filter((r: any) => r.ok).map((r: any) => r.query.ip));
          expect(after, `a batch counts each distinct scored IP once: ${show(c)}`).toBe(before + scored.size);
          expect(body.quota.used_today).toBe(after);
          // The verdict of every item, in order, when the request is plainly the generated list.
          if (!clean(c) || !chosen.ips) return;
          expect(body.results, show(c)).toHaveLength(chosen.ips.length);
          chosen.ips.forEach((ip, i) => {
            const r = body.results[i];
            if (ip.expect === null) {
              if (!r.ok)
                expect(r, show(c)).toEqual({
                  ip: ip.text,
                  ok: false,
                  error: 'invalid_ip',
                  message: expect.any(String),
                });
            } else if (ip.expect.valid) {
              expect(
                r.ok && r.query.ip,
                `${JSON.stringify(ip.text)} must be scored as ${ip.expect.canonical}: ${show(c)}`,
              ).toBe(ip.expect.canonical);
            } else {
              expect(r, `${JSON.stringify(ip.text)} must be an item error: ${show(c)}`).toEqual({
                ip: ip.text,
                ok: false,
                error: 'invalid_ip',
                message: expect.any(String),
              });
            }
          });
        }),
        fuzzParameters(),
      );
    },
    fuzzTimeout(60),
  );

  /**
   * check_block bodies: an address (the IP cases, valid or not) with a prefix around the bounds, a cursor and a
   * limit that are sometimes right; the expectation is worked out here from the IP case's own verdict.
   */
  const prefixText = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(0, 8, 15, 16, 17, 24, 31, 32, 33, 47, 48, 64, 127, 128, 129).map(String) },
    { weight: 2, arbitrary: fc.integer({ min: -3, max: 200 }).map(String) },
    { weight: 1, arbitrary: fc.constantFrom('', '024', '24 ', '2e1', '+24', '24.0') },
    { weight: 1, arbitrary: oddString(3) },
  );
  type BlockCase = { cidr: string; ip: IpCase; prefix: string };
  /** Addresses that are mostly valid, so about half the blocks are accepted and their pages read. */
  const blockIp = fc.oneof(
    { weight: 2, arbitrary: ipCase },
    { weight: 1, arbitrary: fc.ipV4().map((text): IpCase => ({ text, expect: { valid: true, canonical: text } })) },
    {
      weight: 1,
      arbitrary: fc.ipV6().map((text): IpCase => ({ text, expect: { valid: true, canonical: canonicalIpv6(text) } })),
    },
  );
  const blockCase = fc
    .oneof(
      { weight: 1, arbitrary: fc.tuple(blockIp, prefixText) },
      { weight: 1, arbitrary: fc.tuple(blockIp, fc.integer({ min: 16, max: 128 }).map(String)) },
    )
    .map(([ip, prefix]): BlockCase => ({ cidr: `${ip.text}/${prefix}`, ip, prefix }));
  /** The canonical prefix check_block must accept, or null when it must refuse the cidr (undefined: no verdict to check). */
  function blockVerdict(b: BlockCase): { version: 4 | 6; prefix: number } | null | undefined {
    if (b.ip.expect === null || b.ip.text.includes('/')) return undefined;
    if (!b.ip.expect.valid) return null;
    const v6 = b.ip.expect.canonical.includes(':');
    if (!v6 && b.ip.text.includes(':')) return null; // IPv4-mapped IPv6 is refused as a block
    const text = b.prefix.trimEnd(); // the cidr is trimmed, as an IP is
    if (!/^\d{1,3}$/.test(text)) return null;
    const prefix = Number(text);
    return prefix >= (v6 ? 48 : 16) && prefix <= (v6 ? 128 : 32) ? { version: v6 ? 6 : 4, prefix } : null;
  }
  const blockBody = fc.oneof(
    {
      weight: 10,
      arbitrary: fc
        .tuple(
          blockCase,
          fc.option(fc.oneof(fc.integer({ min: -2, max: 102 }), fc.constantFrom(1, 50, 100, 101, 2.5, '10')), {
            nil: undefined,
            freq: 2,
          }),
          fc.option(
            fc.oneof(
              ipCase.map((c) => c.text),
              fc.constant(null),
            ),
            { nil: undefined, freq: 2 },
          ),
        )
        .map(([block, limit, cursor]) => ({
          body: {
            kind: 'json' as const,
            value: {
              cidr: block.cidr,
              ...(limit === undefined ? {} : { limit }),
              ...(cursor === undefined ? {} : { cursor }),
            },
          },
          block,
          limit,
          cursor,
        })),
    },
    {
      weight: 6,
      arbitrary: bodies(
        mutatedObject({ cidr: blockCase.map((b) => b.cidr), limit: fc.integer({ min: 0, max: 101 }) }),
      ).map((body) => ({ body, block: null, limit: undefined, cursor: undefined })),
    },
  );

  it(
    'POST /risk_api/check_block/: one counted check of a bounded block, or a coded error counting nothing',
    async () => {
      await fc.assert(
        fc.asyncProperty(envelope, blockBody, async (c0, chosen) => {
          const c: Case = { ...c0, body: chosen.body };
          const before = await quotaUsed();
          const a = await post('/risk_api/check_block/', c);
          tally.add('POST /risk_api/check_block/', a.status, assertRestAnswer(a, 'check_block', show(c)));
          const after = await quotaUsed();
          if (a.status !== 200) {
            expect(after, `a refused check must not count: ${show(c)} → ${describeAnswer(a)}`).toBe(before);
          } else {
            expect(after, `a check counts one score call: ${show(c)}`).toBe(before + 1);
            const body = a.json as any;
            expect(body.ips.items.length).toBeLessThanOrEqual(typeof chosen.limit === 'number' ? chosen.limit : 50);
          }
          if (!clean(c) || !chosen.block) return;
          const verdict = blockVerdict(chosen.block);
          if (verdict === undefined) return;
          const limitOk =
            chosen.limit === undefined ||
            (Number.isInteger(chosen.limit) && (chosen.limit as number) >= 1 && (chosen.limit as number) <= 100);
          if (verdict === null) {
            expect(a.status, `${JSON.stringify(chosen.block.cidr)} must be refused: ${describeAnswer(a)}`).toBe(400);
            expect((a.json as any).details.map((d: { field: string }) => d.field)).toContain('cidr');
          } else if (!limitOk) {
            expect(a.status, `limit ${JSON.stringify(chosen.limit)} must be refused: ${describeAnswer(a)}`).toBe(400);
          } else if (chosen.cursor === undefined || chosen.cursor === null) {
            expect(a.status, `${JSON.stringify(chosen.block.cidr)} must be accepted: ${describeAnswer(a)}`).toBe(200);
            expect((a.json as any).block).toMatchObject({
              version: verdict.version,
              prefix: verdict.prefix,
              size: String(2n ** BigInt((verdict.version === 4 ? 32 : 128) - verdict.prefix)),
            });
          }
        }),
        fuzzParameters(),
      );
    },
    fuzzTimeout(40),
  );

  it(
    'POST /risk_api/dimensions/: a read or a coded error, never counted',
    async () => {
      await fc.assert(
        fc.asyncProperty(envelope, ipBody, async (c0, chosen) => {
          const c: Case = { ...c0, body: chosen.body };
          const before = await quotaUsed();
          const a = await post('/risk_api/dimensions/', c);
          tally.add('POST /risk_api/dimensions/', a.status, assertRestAnswer(a, 'dimensions', show(c)));
          expect(await quotaUsed(), `dimensions is unmetered: ${show(c)}`).toBe(before);
          if (a.status === 200) expect((a.json as any).quota).toEqual({ counted: false, reason: 'free_endpoint' });
          checkIpVerdict(a, c, chosen.ip, (b) => b.query.ip);
        }),
        fuzzParameters(),
      );
    },
    fuzzTimeout(40),
  );

  /** Idempotency-Key: mostly none; else a fresh one, a reused one (replay or conflict), or a bad one. */
  const idempotencyKey = fc.oneof(
    { weight: 8, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constantFrom('fuzz-1', 'fuzz-2', 'fuzz-3') },
    { weight: 1, arbitrary: fc.oneof(fc.uuid(), fc.constantFrom('', ' ', 'a b', 'x'.repeat(256), 'é', '\u007f')) },
  );
  const withIdempotency = (key: string | null): Record<string, string> =>
    key === null
      ? {}
      : {
          'idempotency-key': Buffer.from(key, 'utf8')
            .toString('latin1')
            .replace(/[^\t\x20-\x7e\x80-\xff]/g, ''),
        };

  it(
    'POST /risk_api/rate/: 201 with one new rating, or nothing written',
    async () => {
      const rateBody = fc.oneof(
        {
          weight: 6,
          arbitrary: fc
            .tuple(ipCase, rateFields.rating, fc.option(rateFields.note, { nil: undefined }))
            .map(([ip, rating, note]) => ({
              body: {
                kind: 'json' as const,
                value: note === undefined ? { ip: ip.text, rating } : { ip: ip.text, rating, note },
              },
              ip,
            })),
        },
        {
          weight: 6,
          arbitrary: bodies(mutatedObject(rateFields)).map((body) => ({
            body,
            ip: { text: '', expect: null } as IpCase,
          })),
        },
      );
      await fc.assert(
        fc.asyncProperty(envelope, rateBody, idempotencyKey, async (c0, chosen, idem) => {
          const c: Case = { ...c0, body: chosen.body };
          const before = await counts();
          const a = await post('/risk_api/rate/', c, withIdempotency(idem));
          const context = `${show(c)} idempotency-key=${JSON.stringify(idem)}`;
          tally.add('POST /risk_api/rate/', a.status, assertRestAnswer(a, 'rate', context));
          const after = await counts();
          if (a.status === 201) {
            expect(after.ratings, context).toBe(before.ratings + 1);
            expect(after.subjects - before.subjects, context).toBeLessThanOrEqual(1); // the IP's subject, the first time
            expect([after.reports, after.links]).toEqual([before.reports, before.links]);
          } else {
            expect(after, `rate ${a.status} must write nothing: ${context} → ${describeAnswer(a)}`).toEqual(before);
          }
          // The IP verdict, when the rest of the body is plainly valid.
          const value = c.body.kind === 'json' ? (c.body.value as Record<string, unknown>) : null;
          if (
            clean(c) &&
            idem === null &&
            chosen.ip.expect &&
            value &&
            [1, 0, -1].includes(value.rating as number) &&
            (value.note === undefined || value.note === null || /^[\x20-\x7e]{0,100}$/.test(String(value.note)))
          ) {
            if (chosen.ip.expect.valid) {
              expect(a.status, `${JSON.stringify(chosen.ip.text)} must be accepted: ${describeAnswer(a)}`).toBe(201);
              expect((a.json as any).report.ip).toBe(chosen.ip.expect.canonical);
            } else {
              expect(a.status, `${JSON.stringify(chosen.ip.text)} must be refused: ${describeAnswer(a)}`).toBe(400);
            }
          }
        }),
        fuzzParameters(),
      );
    },
    fuzzTimeout(60),
  );

  it(
    'POST /risk_api/report/: 201 with one new report, or nothing written',
    async () => {
      await fc.assert(
        fc.asyncProperty(request(bodies(reportBody)), idempotencyKey, async (c, idem) => {
          const before = await counts();
          const a = await post('/risk_api/report/', c, withIdempotency(idem));
          const context = `${show(c)} idempotency-key=${JSON.stringify(idem)}`;
          tally.add('POST /risk_api/report/', a.status, assertRestAnswer(a, 'report', context));
          const after = await counts();
          if (a.status === 201) {
            expect(after.reports, context).toBe(before.reports + 1);
            expect(after.ratings).toBe(before.ratings);
            expect(after.links - before.links).toBe((a.json as any).report.related_subjects.length);
          } else {
            expect(after, `report ${a.status} must write nothing: ${context} → ${describeAnswer(a)}`).toEqual(before);
          }
        }),
        fuzzParameters(),
      );
    },
    fuzzTimeout(80),
  );

  /** Override rule bodies around every rule of the create schema: targets of each kind and none, actions, points, expiries. */
  const overrideFields = mutatedObject({
    target: fc.oneof(
      ipCase.map((c) => c.text),
      fc.constantFrom(
        '203.0.113.0/24',
        '203.0.113.7/24',
        '10.0.0.0/7',
        '2001:db8::/32',
        '2001:db8::/15',
        'AS64500',
        'as0',
        'AS99999999999',
        'NL',
        'XX',
        'zz',
        '',
      ),
      oddString(3),
    ),
    action: fc.constantFrom('allow', 'deny', 'adjust', 'block', ''),
    points: fc.oneof(fc.integer({ min: -120, max: 120 }), fc.constantFrom(0, 2.5, null)),
    reason: fc.oneof(oddString(4), fc.constantFrom('', '   ', 'x'.repeat(501))),
    note: fc.oneof(oddString(3), fc.constant(null)),
    expires_at: fc.oneof(
      fc.constantFrom(null, '2020-01-01T00:00:00Z', '2099-01-01T00:00:00Z', 'tomorrow', '2027-02-30T00:00:00Z'),
      fc
        .date({
          min: new Date(Date.now() + 3_600_000),
          max: new Date(Date.now() + 365 * 86_400_000),
          noInvalidDate: true,
        })
        .map((d) => d.toISOString()),
    ),
  });
  /** Bodies the rules accept (so the write, the cap and the one-rule-per-target check are reached), and the rest. */
  const validOverride = fc
    .record({
      target: fc.oneof(
        fc.ipV4(),
        fc.ipV4().map((ip) => `${ip.split('.').slice(0, 3).join('.')}.0/24`),
        fc.integer({ min: 1, max: 400_000 }).map((n) => `AS${n}`),
        fc.constantFrom('NL', 'de', 'US'),
      ),
      action: fc.constantFrom('allow', 'deny', 'adjust'),
      points: fc.integer({ min: -100, max: 100 }).filter((n) => n !== 0),
      reason: fc.string({ minLength: 1, maxLength: 20 }).filter((r) => /^[\x21-\x7e][\x20-\x7e]*$/.test(r)),
    })
    .map(({ action, points, ...rest }) => (action === 'adjust' ? { ...rest, action, points } : { ...rest, action }));
  const overrideBody = fc.oneof({ weight: 1, arbitrary: validOverride }, { weight: 2, arbitrary: overrideFields });
  const overrideCounts = async () => ({
    rules: await s.app.db.prisma.overrideRule.count(),
    audit: await s.app.db.prisma.overrideAudit.count(),
  });

  it(
    'POST /risk_api/overrides/: 201 with one rule and one audit entry, or nothing written',
    async () => {
      await fc.assert(
        fc.asyncProperty(request(bodies(overrideBody)), async (c) => {
          const before = await overrideCounts();
          const a = await post('/risk_api/overrides/', c);
          tally.add('POST /risk_api/overrides/', a.status, assertRestAnswer(a, 'overrides_create', show(c)));
          const after = await overrideCounts();
          expect(after, show(c)).toEqual(
            a.status === 201 ? { rules: before.rules + 1, audit: before.audit + 1 } : before,
          );
        }),
        fuzzParameters(),
      );
    },
    fuzzTimeout(40),
  );

  it(
    'POST /risk_api/overrides/list/, update/, expire/ and audit/: an answer or a coded error; only a served change writes (one audit entry)',
    async () => {
      const limit = fc.integer({ min: -1, max: 10_001 });
      const cursor = fc.oneof(fc.constantFrom('1', '3', '0', '01', 'abc'), oddString(2));
      const paths = [
        [
          '/risk_api/overrides/list/',
          'overrides_list',
          mutatedObject({
            state: fc.constantFrom('active', 'inactive', 'all', 'none'),
            limit: fc.integer({ min: 0, max: 101 }),
            cursor,
          }),
        ],
        [
          '/risk_api/overrides/expire/',
          'overrides_expire',
          mutatedObject({ id: fc.oneof(fc.integer({ min: -2, max: 60 }), fc.constant(2 ** 31)) }),
        ],
        [
          '/risk_api/overrides/update/',
          'overrides_update',
          fc.oneof(
            // mostly accepted bodies (so the change and its audit entry are reached), then anything
            fc.record({
              id: fc.integer({ min: 1, max: 60 }),
              note: fc.constantFrom('fuzz note', ''),
              expires_at: fc.constantFrom(null, '2099-01-01T00:00:00Z'),
            }),
            mutatedObject({
              id: fc.oneof(fc.integer({ min: -2, max: 60 }), fc.constant(2 ** 31)),
              reason: fc.oneof(oddString(3), fc.constantFrom('', ' ', 'x'.repeat(501))),
              note: oddString(3),
              expires_at: fc.constantFrom(null, '2099-01-01T00:00:00Z', '2020-01-01T00:00:00Z', 'soon'),
            }),
          ),
        ],
        ['/risk_api/overrides/audit/', null, mutatedObject({ limit, cursor })],
      ] as const;
      const chosen = fc
        .constantFrom(0, 1, 2, 3)
        .chain((which) => request(bodies(paths[which]![2])).map((c) => ({ which, c })));
      await fc.assert(
        fc.asyncProperty(chosen, async ({ which, c }) => {
          const [path, endpoint] = paths[which]!;
          const before = await overrideCounts();
          const a = await post(path, c);
          let label: string;
          if (endpoint) label = assertRestAnswer(a, endpoint, show(c));
          else if (a.status === 200) {
            for (const line of a.text.split('\n').filter(Boolean))
              expect(() => JSON.parse(line), show(c)).not.toThrow();
            label = 'ok';
          } else label = assertCodedRestError(a, show(c));
          tally.add(`POST ${path}`, a.status, label);
          const after = await overrideCounts();
          const changed = (endpoint === 'overrides_expire' || endpoint === 'overrides_update') && a.status === 200;
          expect(after, show(c)).toEqual(changed ? { rules: before.rules, audit: before.audit + 1 } : before);
        }),
        fuzzParameters(),
      );
    },
    fuzzTimeout(40),
  );

  const watchCount = () => s.app.db.prisma.watch.count();
  const watchFields = mutatedObject({
    target: fc.oneof(
      ipCase.map((c) => c.text),
      fc.constantFrom('203.0.113.0/24', '203.0.113.7/24', '10.0.0.0/7', '2001:db8::/32', 'AS64500', 'as0', 'NL', ''),
      oddString(3),
    ),
    subject: fc.oneof(
      fc.record({
        kind: fc.constantFrom('domain', 'email', 'url', 'phone', 'ipaddress', 'asn', 'planet', ''),
        key: fc.oneof(
          oddString(3),
          fc.constantFrom('shop.example', 'a@b.example', '+31201234567', 'https://x.example/p'),
        ),
      }),
      wrongValue,
    ),
    score_threshold: fc.oneof(fc.integer({ min: -5, max: 105 }), fc.constantFrom(null, 2.5, '50')),
    note: fc.oneof(oddString(3), fc.constantFrom(null, 'x'.repeat(1001))),
  });
  /** Bodies the rules accept (so the write, the cap and the one-watch-per-target check are reached), and the rest. */
  const validWatch = fc.oneof(
    fc.record({
      target: fc.oneof(
        fc.ipV4(),
        fc.integer({ min: 1, max: 400_000 }).map((n) => `AS${n}`),
      ),
      score_threshold: fc.integer({ min: 1, max: 100 }),
    }),
    fc.record({
      subject: fc.record({ kind: fc.constant('domain'), key: fc.stringMatching(/^[a-z]{1,12}\.example$/) }),
    }),
  );

  it(
    'POST /risk_api/watches/: 201 with one watch, or nothing written',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          request(bodies(fc.oneof({ weight: 1, arbitrary: validWatch }, { weight: 2, arbitrary: watchFields }))),
          async (c) => {
            const before = await watchCount();
            const a = await post('/risk_api/watches/', c);
            tally.add('POST /risk_api/watches/', a.status, assertRestAnswer(a, 'watches_create', show(c)));
            expect(await watchCount(), show(c)).toBe(a.status === 201 ? before + 1 : before);
          },
        ),
        fuzzParameters(),
      );
    },
    fuzzTimeout(40),
  );

  it(
    'POST /risk_api/watches/list/, update/ and delete/: an answer or a coded error; only a served delete removes one watch',
    async () => {
      const id = fc.oneof(fc.integer({ min: -2, max: 60 }), fc.constant(2 ** 31));
      const paths = [
        [
          '/risk_api/watches/list/',
          'watches_list',
          mutatedObject({
            limit: fc.integer({ min: 0, max: 101 }),
            cursor: fc.oneof(fc.constantFrom('1', '3', '0', '01', 'abc'), oddString(2)),
          }),
        ],
        [
          '/risk_api/watches/update/',
          'watches_update',
          fc.oneof(
            fc.record({
              id: fc.integer({ min: 1, max: 60 }),
              note: fc.constantFrom('fuzz note', ''),
              score_threshold: fc.constantFrom(null, 40),
            }),
            mutatedObject({
              id,
              note: oddString(3),
              score_threshold: fc.oneof(fc.integer({ min: -5, max: 105 }), fc.constantFrom(null, 'x')),
            }),
          ),
        ],
        ['/risk_api/watches/delete/', 'watches_delete', mutatedObject({ id })],
      ] as const;
      const chosen = fc
        .constantFrom(0, 1, 2)
        .chain((which) => request(bodies(paths[which]![2])).map((c) => ({ which, c })));
      await fc.assert(
        fc.asyncProperty(chosen, async ({ which, c }) => {
          const [path, endpoint] = paths[which]!;
          const before = await watchCount();
          const a = await post(path, c);
          tally.add(`POST ${path}`, a.status, assertRestAnswer(a, endpoint, show(c)));
          expect(await watchCount(), show(c)).toBe(
            endpoint === 'watches_delete' && a.status === 200 ? before - 1 : before,
          );
        }),
        fuzzParameters(),
      );
    },
    fuzzTimeout(40),
  );

  const exportQuery = fc.dictionary(
    fc.oneof(
      fc.constantFrom(
        'kind',
        'outcome_code',
        'severity',
        'share_policy',
        'namespace',
        'tags',
        'from',
        'to',
        'text',
        'limit',
        'cursor',
        'format',
        'outcomeCode',
      ),
      oddString(2),
    ),
    fc.oneof(
      oddString(4),
      fc.constantFrom(
        'csv',
        'ndjson',
        'json',
        '0',
        '1',
        '100000',
        '100001',
        '-1',
        '1e3',
        '2026-01-01T00:00:00Z',
        '2026-13-45',
        '-271821-04-20T00:00:00Z',
        '+275760-09-13T00:00:00Z',
        '0000-01-01',
        '1e21',
        'spam,fraud_watch',
        ',',
        'eyJ4IjoxfQ',
        '%zz',
      ),
    ),
    { maxKeys: 4 },
  );

  const exportBody = mutatedObject({
    outcome_code: fc.array(fc.constantFrom('spam', 'x')),
    format: fc.constantFrom('csv', 'ndjson', 'xml'),
    limit: fc.oneof(fc.integer(), wrongValue),
    from: fc.constantFrom(
      '2026-01-01T00:00:00Z',
      '-271821-04-20T00:00:00Z',
      '+275760-09-13T00:00:00Z',
      '0001-01-01T00:00:00Z',
    ),
    namespace: fc.array(oddString(2), { maxLength: 2 }),
    text: oddString(3),
    cursor: fc.oneof(oddString(2), wrongValue),
  });

  it(
    'GET and POST /risk_api/export/: a stream of records or a coded error, writing nothing',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          keyHeaders,
          exportQuery,
          fc.boolean(),
          fc.boolean(),
          request(bodies(exportBody)),
          fc.nat(3),
          async (key, query, get, rawQuery, c, junk) => {
            const before = await counts();
            let a: Answer;
            let context: string;
            if (get) {
              let qs = new URLSearchParams(query).toString();
              if (rawQuery) qs += ['', '&%zz=1', '&a=%E0%A4%A', '&&&=&'][junk];
              context = `GET ?${qs} key=${key}`;
              a = await send(s.url, 'GET', `/risk_api/export/?${qs}`, authHeaders(key, secret, ''));
            } else {
              context = show(c);
              a = await post('/risk_api/export/', c);
            }
            let label: string;
            if (a.status === 200) {
              const type = String(a.headers['content-type']);
              expect(type, context).toMatch(/^(application\/x-ndjson|text\/csv)/);
              if (type.startsWith('application/x-ndjson'))
                for (const line of a.text.split('\n').filter(Boolean))
                  expect(() => JSON.parse(line), context).not.toThrow();
              label = 'ok';
            } else {
              label = assertCodedRestError(a, context);
            }
            tally.add('GET|POST /risk_api/export/', a.status, label);
            expect(await counts(), context).toEqual(before);
          },
        ),
        fuzzParameters(),
      );
    },
    fuzzTimeout(40),
  );
});
