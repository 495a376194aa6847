/**
 * `npx tsx bench/answers-identity.ts --before <bundle> [--after <bundle>]`: proves that two builds of the service
 * answer every REST JSON endpoint byte for byte alike (the reads, then the writes: see writes() for how an answer
 * that holds a new row's id and time is compared). Both run at once over ONE PostgreSQL database seeded once
 * (same keys, publication and workspace memory) and each over its own Redis key prefix (so each counts its own
 * quota and community lookups from zero); every request goes to the first build, then the same to the second, and
 * their status, answer headers (all but the request id and date) and body bytes must be equal.
 *
 * `--before` is a bundle built from the commit to compare with (scripts/build.mjs writes dist/server/; copy it aside
 * first, e.g. to dist/before-server/); `--after` defaults to a fresh build of this tree. `--ips N` seeds N IPs
 * (default 3000); `--per-endpoint N` sends N requests per endpoint (default 300). Exits 1 on any difference.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { buildDataset, prng } from './dataset.ts';
import { seed } from './seed.ts';
import { postgresBackend, serviceEnv } from './backends.ts';
import { buildService, startScriptEnv, startServer, stopAll } from './children.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string' },
    ips: { type: 'string', default: '3000' },
    'per-endpoint': { type: 'string', default: '300' },
  },
});
if (!args.before) throw new Error('--before <bundle> is required (a dist/server/main.mjs built from the base commit)');
const PER_ENDPOINT = Number(args['per-endpoint']);
/** Headers that differ by request, not by build. */
const VOLATILE = new Set(['x-request-id', 'date', 'connection', 'keep-alive']);
/** Seconds to the quota's reset: the two calls may fall either side of a second's tick. */
const SECONDS_LEFT = 'ratelimit-reset';

type Request = { endpoint: string; path: string; body: string };
/**
 * How a pair of answers is compared. same: status, headers and bytes. replay: the first build's write is replayed
 * by the second (same Idempotency-Key, one database), so the bodies must be the same bytes, the statuses 201 then
 * 200 with Idempotent-Replayed. masked: two writes of the same change, one per build, whose new row's id and times
 * differ by construction: compared with those values masked (their place and form must still agree).
 */
type Compare = 'same' | 'replay' | 'masked';

/** Bodies per endpoint: seeded IPs (with and without the workspace's memory), special and malformed inputs. */
function requests(ips: string[], writtenIps: string[]): Request[] {
  const random = prng(7);
  const pick = (list: string[]) => list[Math.floor(random() * list.length)]!;
  const specials = ['10.0.0.1', '127.0.0.1', '::1', '2001:db8::1', '192.0.2.7', '0.0.0.0', '::ffff:8.8.8.8'];
  const bad = ['{}', '{"ip":"nope"}', '{"ip":1}', '{"ip":"8.8.8.8","x":1}', '[]', '{"ip":"300.1.1.1"}', 'not json'];
  const out: Request[] = [];
  const add = (endpoint: string, p: string, body: unknown) =>
    out.push({ endpoint, path: p, body: typeof body === 'string' ? body : JSON.stringify(body) });
  for (let i = 0; i < PER_ENDPOINT; i++) {
    const ip = i % 10 === 0 ? pick(specials) : i % 3 === 0 ? pick(writtenIps) : pick(ips);
    if (i % 25 === 7) add('score', '/risk_api/score', bad[i % bad.length]!);
    else add('score', i % 2 ? '/risk_api/score/' : '/risk_api/score', { ip });
    const n = 1 + Math.floor(random() * 12);
    const batch = Array.from({ length: n }, (_, j) =>
      j % 5 === 4 ? 'not-an-ip' : j % 4 === 3 ? pick(specials) : pick(ips),
    );
    if (i % 20 === 0) batch.push(batch[0]!); // a repeated item
    if (i % 25 === 9) add('score_batch', '/risk_api/score/batch/', i % 2 ? { ips: [] } : { ips: 'x' });
    else add('score_batch', '/risk_api/score/batch/', { ips: batch });
    add('dimensions', '/risk_api/dimensions/', i % 25 === 11 ? bad[i % bad.length]! : { ip });
    const cidr = i % 7 === 0 ? `${pick(ips)}/33` : `${pick(writtenIps).split('.').slice(0, 3).join('.')}.0/24`;
    add('check_block', '/risk_api/check_block/', i % 4 === 0 ? { cidr, limit: 5 } : { cidr });
  }
  return out;
}

async function send(baseUrl: string, key: string, r: Request, idempotencyKey?: string) {
  const res = await fetch(`${baseUrl}${r.path}`, {
    method: 'POST',
    headers: {
      'content-type': r.path.includes('/bulk') ? 'application/x-ndjson' : 'application/json',
      'x-api-key': key,
      ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
    },
    body: r.body,
  });
  const headers = [...res.headers]
    .filter(([k]) => !VOLATILE.has(k) && k !== SECONDS_LEFT)
    .sort(([a], [b]) => a.localeCompare(b));
  const secondsLeft = Number(res.headers.get(SECONDS_LEFT) ?? 0);
  return {
    status: res.status,
    headers: JSON.stringify(headers),
    secondsLeft,
    body: Buffer.from(await res.arrayBuffer()),
  };
}

const MASKED = /"(id|created_at|expired_at|rule_id)":("[^"]*"|\d+)/g;
const masked = (b: Buffer) => Buffer.from(b.toString('utf8').replace(MASKED, '"$1":"…"'));
type Answer = Awaited<ReturnType<typeof send>>;
const withoutLength = (headers: string) =>
  JSON.stringify((JSON.parse(headers) as string[][]).filter(([name]) => name !== 'content-length'));

/** Whether two answers agree under `compare`; the headers are compared but for Idempotent-Replayed on a replay. */
function agree(a: Answer, b: Answer, compare: Compare): boolean {
  const tick = Math.abs(a.secondsLeft - b.secondsLeft) > 1;
  if (compare === 'replay' && a.status === 201)
    return (
      b.status === 200 &&
      b.headers ===
        JSON.stringify(
          JSON.parse(a.headers)
            .concat([['idempotent-replayed', 'true']])
            .sort(),
        ) &&
      a.body.equals(b.body)
    );
  if (compare === 'masked')
    // A masked id may have another number of digits: the length follows it.
    return (
      a.status === b.status &&
      withoutLength(a.headers) === withoutLength(b.headers) &&
      masked(a.body).equals(masked(b.body))
    );
  return a.status === b.status && a.headers === b.headers && !tick && a.body.equals(b.body);
}

/**
 * The writes, in an order where each step's answer is known: rate and report as replays (each build writes first
 * every other time); the override and watch families on targets of their own, each created, changed, listed and
 * ended once per build (masked), their lists and refusals byte for byte; the bulk report as NDJSON replays.
 */
function writes(ips: string[]): Array<Request & { compare: Compare; key?: string }> {
  const out: Array<Request & { compare: Compare; key?: string }> = [];
  const add = (endpoint: string, p: string, body: unknown, compare: Compare, key?: string) =>
    out.push({
      endpoint,
      path: p,
      body: typeof body === 'string' ? body : JSON.stringify(body),
      compare,
      ...(key ? { key } : {}),
    });
  const run = randomBytes(4).toString('hex');
  const n = Math.max(1, Math.floor(PER_ENDPOINT / 3));
  for (let i = 0; i < n; i++) {
    const ip = ips[i % ips.length]!;
    add(
      'rate',
      '/risk_api/rate/',
      { ip, rating: (i % 3) - 1, note: i % 2 ? `note ${i}` : '' },
      'replay',
      `r-${run}-${i}`,
    );
    if (i % 10 === 3) add('rate', '/risk_api/rate/', { ip, rating: 7 }, 'same');
    add(
      'report',
      '/risk_api/report/',
      {
        kind: i % 2 ? 'ipaddress' : 'domain',
        key: i % 2 ? ip : `shop-${i}.example`,
        outcome_code: ['fraud_watch', 'spam', 'chargeback'][i % 3],
        severity: 'high',
        tags: i % 4 ? ['carding'] : [],
        related_subjects: i % 2 ? [] : [{ kind: 'ipaddress', key: ip, role: 'source_ip' }],
      },
      'replay',
      `p-${run}-${i}`,
    );
    if (i % 10 === 5) add('report', '/risk_api/report/', { kind: 'domain', key: 'x' }, 'same');
    // Lines without keys: each build stores its own (ids masked); a keyed line would be created by one, replayed by the other.
    add(
      'report_bulk',
      '/risk_api/report/bulk/',
      `${JSON.stringify({ kind: 'ipaddress', key: ip, outcome_code: 'spam' })}\n{"kind":"nope"}\n`,
      'masked',
    );
  }
  for (let i = 0; i < Math.min(n, 40); i++) {
    const target = `198.18.${i}.0/24`;
    add(
      'overrides_create',
      '/risk_api/overrides/',
      { target, action: 'adjust', points: 5, reason: `r ${i}` },
      'masked',
    );
    add('overrides_update', '/risk_api/overrides/update/', { id: 0, reason: 'x' }, 'same');
    add('overrides_list', '/risk_api/overrides/list/', { state: 'all', limit: 50 }, 'same');
    add('overrides_expire', '/risk_api/overrides/expire/', { id: 999_999_999 }, 'same');
    add('watches_create', '/risk_api/watches/', { target, score_threshold: 50, note: `w ${i}` }, 'masked');
    add('watches_update', '/risk_api/watches/update/', { id: 999_999_999, note: 'x' }, 'same');
    add('watches_list', '/risk_api/watches/list/', { limit: 50 }, 'same');
    add('watches_delete', '/risk_api/watches/delete/', { id: 999_999_999 }, 'same');
  }
  return out;
}

/** Where two answers first differ, with a little context. */
function firstDifference(a: Buffer, b: Buffer): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `at byte ${i}: before …${a.subarray(Math.max(0, i - 80), i + 80)}… after …${b.subarray(Math.max(0, i - 80), i + 80)}…`;
}

/** What ends a row a masked create made (so the other build may create on the same target): its id, from the answer. */
function endOf(endpoint: string, created: Answer): Request {
  const body = JSON.parse(created.body.toString()) as { rule?: { id: number }; watch?: { id: number } };
  const id = (body.rule ?? body.watch)?.id ?? 0;
  return endpoint.startsWith('overrides')
    ? { endpoint: 'overrides_expire', path: '/risk_api/overrides/expire/', body: JSON.stringify({ id }) }
    : { endpoint: 'watches_delete', path: '/risk_api/watches/delete/', body: JSON.stringify({ id }) };
}

async function main() {
  const afterBundle = args.after ? path.resolve(args.after) : buildService(ROOT);
  const backend = await postgresBackend({ label: 'identity' });
  try {
    const data = await buildDataset(Number(args.ips));
    const pepper = randomBytes(32).toString('hex');
    const seeded = await seed({ databaseUrl: backend.databaseUrl, dataDir: backend.dataDir, pepper }, data, 1);
    const prefix = backend.env.REDIS_KEY_PREFIX!;
    const start = (name: string, bundle: string) =>
      startServer(
        name,
        bundle,
        startScriptEnv(
          ROOT,
          serviceEnv({
            API_KEY_PEPPER: pepper,
            ...backend.env,
            // The same in both: answers link to BASE_URL's pages.
            BASE_URL: 'http://127.0.0.1:8080',
            REDIS_KEY_PREFIX: `${prefix}${name}:`,
          }),
        ),
        '/readyz',
        ROOT,
      );
    const before = await start('before', path.resolve(args.before!));
    const after = await start('after', afterBundle);
    const key = seeded.keys[0]!;
    const tally = new Map<string, { requests: number; differ: number; statuses: Set<number> }>();
    let shown = 0;
    const all = [
      ...requests(data.ips, seeded.writtenIps).map((r) => ({ ...r, compare: 'same' as Compare, key: undefined })),
      ...writes(data.ips),
    ];
    const record = (endpoint: string, a: Answer, b: Answer, compare: Compare, r: Request) => {
      const t = tally.get(endpoint) ?? { requests: 0, differ: 0, statuses: new Set<number>() };
      tally.set(endpoint, t);
      t.requests++;
      t.statuses.add(a.status);
      if (agree(a, b, compare)) return;
      t.differ++;
      if (shown++ < 12)
        console.log(
          `DIFFERENT ${r.path} ${r.body}\n  before ${a.status} ${a.headers}\n  after  ${b.status} ${b.headers}\n  ${firstDifference(a.body, b.body)}`,
        );
    };
    for (const [i, r] of all.entries()) {
      // A replay or a masked pair is written by each build first in turn: both builds' fresh answers are checked.
      const [first, second] = r.compare !== 'same' && i % 2 ? [after, before] : [before, after];
      if (r.compare === 'masked' && r.endpoint.endsWith('_create')) {
        const a = await send(first.baseUrl, key, r);
        const endA = endOf(r.endpoint, a);
        const ea = await send(first.baseUrl, key, endA);
        const b = await send(second.baseUrl, key, r);
        const eb = await send(second.baseUrl, key, endOf(r.endpoint, b));
        record(r.endpoint, a, b, 'masked', r);
        record(endA.endpoint, ea, eb, 'masked', endA);
        continue;
      }
      record(
        r.endpoint,
        await send(first.baseUrl, key, r, r.key),
        await send(second.baseUrl, key, r, r.key),
        r.compare,
        r,
      );
    }
    console.log('| endpoint | requests | statuses seen | byte-identical |\n|---|---|---|---|');
    for (const [endpoint, t] of tally)
      console.log(
        `| ${endpoint} | ${t.requests} | ${[...t.statuses].sort().join(', ')} | ${t.requests - t.differ}/${t.requests} |`,
      );
    process.exitCode = [...tally.values()].some((t) => t.differ > 0) ? 1 : 0;
  } finally {
    await stopAll();
    await backend.remove();
  }
}

await main();
