/**
 * `npm run soak`: the service on PostgreSQL + Redis under a fixed mixed load for a set time,
 * sampled every interval: requests/s, p50/p99, errors by status and code, and the server's RSS
 * (VmRSS from /proc). Prints a markdown report with a verdict on errors and on RSS growth, and
 * saves it to bench/results/soak-latest.md. Loopback only; the database, the Redis keys and the
 * child it made are removed at the end, on failure too, and the run has a time limit.
 *
 *   --minutes M       load time (default: SOAK_MINUTES, else 10)
 *   --interval S      seconds per sample (default: SOAK_INTERVAL_S, else 30)
 *   --connections N   concurrent connections (default 32)
 *   --ips N           data set size (default 100000, as `npm run bench`)
 *   --republish M     write a new publication every M minutes under load (default 2; 0 = never)
 *   --keys N          enterprise API keys the load rotates over (default 64; 500 score calls/s each)
 *
 * PostgreSQL and Redis: DATABASE_URL / REDIS_URL when set, else the machine's loopback services.
 * The soak never writes into the database DATABASE_URL names: it creates a fresh one beside it
 * (same server) and a fresh Redis key prefix, and drops both at the end.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import autocannon, { type Request } from 'autocannon';
import { openDatabase } from '../src/platform/db/database.ts';
import { prunePublications } from '../src/domain/publishing/publication-store.ts';
import { buildDataset } from './dataset.ts';
import { seed, writePublication } from './seed.ts';
import { ADMIN_PG_URL, REDIS_URL, postgresBackend, serviceEnv, type Backend } from './backends.ts';
import { buildService, freePort, memoryOf, startNode, startScriptEnv, stopAll, waitReady } from './children.ts';
import { percentile, probe } from './load.ts';
import { requestLists, scenarios, type Scenario, type ScenarioName } from './scenarios.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string' },
    interval: { type: 'string' },
    connections: { type: 'string', default: '32' },
    ips: { type: 'string', default: '100000' },
    republish: { type: 'string', default: '2' },
    keys: { type: 'string', default: '64' },
  },
});
function numberArg(name: string, raw: string | undefined, fallback: number, min: number): number {
  const v = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(v) || v < min) throw new Error(`${name} must be a number ≥ ${min} (got ${JSON.stringify(raw)})`);
  return v;
}
const MINUTES = numberArg('--minutes / SOAK_MINUTES', args.minutes ?? process.env.SOAK_MINUTES, 10, 0.5);
const INTERVAL_S = numberArg('--interval / SOAK_INTERVAL_S', args.interval ?? process.env.SOAK_INTERVAL_S, 30, 1);
const CONNECTIONS = Math.round(numberArg('--connections', args.connections, 32, 1));
const IPS = Math.round(numberArg('--ips', args.ips, 100_000, 1000));
const REPUBLISH_MIN = numberArg('--republish', args.republish, 2, 0);
const INTERVALS = Math.max(3, Math.round((MINUTES * 60) / INTERVAL_S));

/** The mix, in requests out of 20: 70% score, 10% rate, 5% report, 15% analyst reads. */
const MIX: Array<[ScenarioName, number]> = [
  ['score-rest', 14],
  ['rate', 2],
  ['report', 1],
  ['analyst-graphql', 3],
];
const PATTERN_REPEATS = 64; // each connection's list: 64 × 20 = 1,280 requests, then it starts over
/** Writes and analyst reads go to this many IPs (pre-written before the load), so reads find data. */
const HOT_IPS = 2048;
/** score's burst limit is 500/s per key on 'enterprise': 64 keys allow 32,000/s. */
const KEY_COUNT = Math.round(numberArg('--keys', args.keys, 64, 1));
/** enterprise's daily score quota per workspace, and a score rate above anything this service reaches on one host. */
const ENTERPRISE_DAILY = 5_000_000;
const SCORE_CEILING_RPS = 10_000;
/**
 * RSS "bounded": the floor (10th percentile of the 5-second samples) of the last third of the run at
 * most this much above the middle third's. Floors, not peaks or medians: garbage collection and a
 * snapshot swap (two publications held for a moment) move RSS up and down by ~200 MB; a leak lifts
 * the floor the process returns to.
 */
const RSS_GROWTH_LIMIT = 0.1;
const RSS_FLOOR_PERCENTILE = 0.1;
const RSS_SAMPLE_MS = 5000;
const TIME_LIMIT_MS = (MINUTES + 20) * 60_000;

const log = (msg: string) => console.error(`[soak +${Math.round(process.uptime())}s] ${msg}`);
let backend: Backend | null = null;
let cleaning: Promise<void> | null = null;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await stopAll();
    await backend?.remove().catch((e) => log(`could not remove the soak database / keys: ${String(e)}`));
  })();
  return cleaning;
}
const abort = (why: string) => {
  log(why);
  void cleanup().finally(() => process.exit(2));
};
setTimeout(() => abort(`time limit of ${TIME_LIMIT_MS / 60_000} min reached: stopping`), TIME_LIMIT_MS).unref();
process.once('SIGINT', () => abort('interrupted'));
process.once('SIGTERM', () => abort('terminated'));

// ---------------------------------------------------------------------------------------------
// Accounting. autocannon calls a request's own onResponse(status, body) and, synchronously right
// after, emits 'response' with the latency: the first stores which kind answered and how, the
// second records it, so every response is attributed to its kind without per-response objects.

type Kind = number; // index into MIX
/** A line of the per-request table: a kind of the mix, the analyst reads split by document. Line 0 is score. */
type Line = { label: string; kind: Kind; lat: Latencies; failed: number; sent: number };
const lines: Line[] = [];
class Latencies {
  private a = new Float32Array(1 << 14);
  n = 0;
  push(ms: number) {
    if (this.n === this.a.length) {
      const g = new Float32Array(this.a.length * 2);
      g.set(this.a);
      this.a = g;
    }
    this.a[this.n++] = ms;
  }
  sorted(): Float32Array {
    return this.a.subarray(0, this.n).sort();
  }
  appendTo(other: Latencies) {
    for (let i = 0; i < this.n; i++) other.push(this.a[i]!);
  }
}
type Window = {
  startMs: number;
  all: Latencies;
  score: Latencies;
  perLine: Latencies[];
  failures: Map<string, number>;
};
type IntervalRow = {
  fromS: number;
  toS: number;
  rps: number;
  p50: number;
  p99: number;
  scoreP99: number;
  requests: number;
  errors: number;
  failures: Map<string, number>;
  rssMb: number | null;
  lineP99: number[];
};

const newWindow = (): Window => ({
  startMs: performance.now(),
  all: new Latencies(),
  score: new Latencies(),
  perLine: lines.map(() => new Latencies()),
  failures: new Map(),
});
let win = newWindow();
const failureTotals = new Map<string, { count: number; example: string }>();
let lastLine = 0;
let lastFailure: string | null = null;
let lastBody = '';
let scoreOk = 0;

function fail(key: string, example: string) {
  win.failures.set(key, (win.failures.get(key) ?? 0) + 1);
  const t = failureTotals.get(key);
  if (t) t.count++;
  else failureTotals.set(key, { count: 1, example: example.slice(0, 300) });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  } // not JSON: uncoded
}

/**
 * null for a success; else "<status> <code>": REST's `error`, GraphQL's first `errors[].extensions.code`
 * (a GraphQL answer with a top-level `errors` is a failure whatever its status), "(no error code)" when there is none.
 */
function classify(graphql: boolean, status: number, body: string): string | null {
  const ok = status >= 200 && status < 300;
  if (ok && !(graphql && body.includes('"errors"'))) return null;
  const parsed = parseJson(body) as { error?: unknown; errors?: Array<{ extensions?: { code?: unknown } }> } | null;
  if (ok && !Array.isArray(parsed?.errors)) return null; // "errors" was only text inside the data
  const code = graphql ? (parsed?.errors?.[0]?.extensions?.code ?? parsed?.error) : parsed?.error;
  return `${status} ${typeof code === 'string' && code ? code : '(no error code)'}`;
}

/** Sorts every request of the lists into its line (creating the lines) and gives it the handler of that line. */
function attach(lists: Request[][], kindOf: Map<Request, Kind>) {
  const index = new Map<string, number>();
  const handlers: Array<(status: number, body: string) => void> = [];
  const lineOf = (req: Request): number => {
    const kind = kindOf.get(req)!;
    const s = all()[MIX[kind]![0]];
    const op = s.name === 'analyst-graphql' ? /"query":"query (\w+)/.exec(String(req.body))?.[1] : undefined;
    const label = op ? `${s.label}: ${op}` : s.label;
    let i = index.get(label);
    if (i === undefined) {
      i = lines.length;
      index.set(label, i);
      lines.push({ label, kind, lat: new Latencies(), failed: 0, sent: 0 });
      const line = i;
      const graphql = s.graphql;
      handlers.push((status, body) => {
        lastLine = line;
        lastFailure = classify(graphql, status, body);
        lastBody = lastFailure ? body : '';
      });
    }
    return i;
  };
  for (const list of lists) {
    for (const req of list) {
      const i = lineOf(req);
      lines[i]!.sent++;
      req.onResponse = handlers[i]!;
    }
  }
}

function onResponse(ms: number) {
  win.all.push(ms);
  win.perLine[lastLine]!.push(ms);
  if (lastLine === 0) win.score.push(ms);
  if (lastFailure) {
    lines[lastLine]!.failed++;
    fail(`${lines[lastLine]!.label}: ${lastFailure}`, lastBody);
  } else if (lastLine === 0) scoreOk++;
}
let allScenarios: Record<ScenarioName, Scenario> | null = null;
const all = () => allScenarios!;

function closeWindow(fromS: number, rssMb: number | null): IntervalRow {
  const w = win;
  win = newWindow();
  const seconds = (performance.now() - w.startMs) / 1000;
  const sorted = w.all.sorted();
  w.perLine.forEach((l, i) => {
    l.appendTo(lines[i]!.lat);
  });
  const errors = [...w.failures.values()].reduce((a, b) => a + b, 0);
  return {
    fromS,
    toS: fromS + seconds,
    rps: Math.round(w.all.n / seconds),
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    scoreP99: percentile(w.score.sorted(), 0.99),
    requests: w.all.n,
    errors,
    failures: w.failures,
    rssMb,
    lineP99: w.perLine.map((l) => percentile(l.sorted(), 0.99)),
  };
}

// ---------------------------------------------------------------------------------------------
// The request lists: every connection interleaves the mix in a fixed order (smooth weighted
// round robin over the 20 slots), each kind over its own slice of IPs, keys rotating.

function pattern(): Kind[] {
  const total = MIX.reduce((a, [, w]) => a + w, 0);
  const current = MIX.map(() => 0);
  const out: Kind[] = [];
  for (let i = 0; i < total; i++) {
    MIX.forEach(([, w], k) => {
      current[k]! += w;
    });
    const k = current.indexOf(Math.max(...current));
    current[k]! -= total;
    out.push(k);
  }
  return out;
}

function mixedLists(ips: string[], hot: string[], keys: string[]): { lists: Request[][]; kindOf: Map<Request, Kind> } {
  const order = pattern();
  const perKind = MIX.map(([name], k) => {
    const count = order.filter((x) => x === k).length * PATTERN_REPEATS;
    return requestLists(all()[name], name === 'score-rest' ? ips : hot, keys, CONNECTIONS, count);
  });
  const kindOf = new Map<Request, Kind>();
  const lists: Request[][] = [];
  for (let c = 0; c < CONNECTIONS; c++) {
    const next = MIX.map(() => 0);
    const list: Request[] = [];
    for (let r = 0; r < PATTERN_REPEATS; r++) {
      for (const k of order) {
        const req = perKind[k]![c]![next[k]!++]!;
        kindOf.set(req, k);
        list.push(req);
      }
    }
    lists.push(list);
  }
  return { lists, kindOf };
}

/** Writes a report and a rating about every hot IP before the load, so the analyst reads have a graph to walk. */
async function preWrite(baseUrl: string, hot: string[], keys: string[]): Promise<number> {
  const reqs = [
    ...requestLists(all().report, hot, keys, 1, hot.length)[0]!,
    ...requestLists(all().rate, hot, keys, 1, hot.length)[0]!,
  ];
  let next = 0;
  const worker = async () => {
    while (next < reqs.length) {
      const req = reqs[next++]!;
      const res = await fetch(baseUrl + req.path, {
        method: 'POST',
        headers: req.headers,
        body: req.body as string,
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      if (res.status !== 201) throw new Error(`pre-write ${req.path} answered ${res.status}: ${text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return reqs.length;
}

/** Each workspace's score count today, read with one more score call per workspace (which counts itself: minus 1). */
async function meteredScores(
  baseUrl: string,
  keys: string[],
  workspaces: number,
  ip: string,
): Promise<{ counted: number; dailyLimit: number | null; version: number | null }> {
  let counted = 0;
  let dailyLimit: number | null = null;
  let version: number | null = null;
  for (let w = 0; w < workspaces; w++) {
    const res = await fetch(`${baseUrl}/risk_api/score/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': keys[w]! },
      body: JSON.stringify({ ip }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await res.json()) as {
      quota?: { used_today?: number; daily_limit?: number };
      publication?: { version?: number };
    };
    if (res.status !== 200 || typeof body.quota?.used_today !== 'number')
      throw new Error(`metering check: score answered ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    counted += body.quota.used_today - 1;
    dailyLimit = body.quota.daily_limit ?? null;
    version = body.publication?.version ?? null;
  }
  return { counted, dailyLimit, version };
}

// ---------------------------------------------------------------------------------------------
// Report.

const fmt = (n: number | null, digits = 0) =>
  n !== null && Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '—';
const mmss = (seconds: number) => {
  const t = Math.round(seconds);
  return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, '0')}`;
};

type RssVerdict = {
  middle: { floor: number; median: number };
  last: { floor: number; median: number };
  growth: number;
  slopeMbPerMin: number;
  bounded: boolean;
};
/** Middle third vs last third of the load (the first third is warm-up), and a least-squares slope over both. */
function rssVerdict(samples: Array<{ s: number; mb: number }>, durationS: number): RssVerdict | null {
  const mid = samples.filter((x) => x.s >= durationS / 3 && x.s < (2 * durationS) / 3);
  const last = samples.filter((x) => x.s >= (2 * durationS) / 3);
  if (mid.length === 0 || last.length === 0) return null;
  const tail = [...mid, ...last];
  const mx = tail.reduce((a, x) => a + x.s, 0) / tail.length;
  const my = tail.reduce((a, x) => a + x.mb, 0) / tail.length;
  const sxx = tail.reduce((a, x) => a + (x.s - mx) ** 2, 0);
  const slope = sxx > 0 ? (tail.reduce((a, x) => a + (x.s - mx) * (x.mb - my), 0) / sxx) * 60 : 0;
  const stats = (xs: Array<{ mb: number }>) => {
    const sorted = Float64Array.from(xs.map((x) => x.mb)).sort();
    return { floor: percentile(sorted, RSS_FLOOR_PERCENTILE), median: percentile(sorted, 0.5) };
  };
  const m = stats(mid);
  const l = stats(last);
  const growth = (l.floor - m.floor) / m.floor;
  return { middle: m, last: l, growth, slopeMbPerMin: slope, bounded: growth < RSS_GROWTH_LIMIT };
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const cpu = os.cpus();
  const machine = `${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GB RAM, ${os.type()} ${os.release()}, Node ${process.version}`;
  log(`${machine}; ${MINUTES} min, ${INTERVALS} intervals of ${INTERVAL_S} s, ${CONNECTIONS} connections`);
  const data = await buildDataset(IPS);
  log(
    `data set: ${data.ips.length} IPs → ${data.global.length} global + ${data.contextual.length} workspace summaries (built in ${data.buildMs} ms)`,
  );

  const adminUrl = process.env.DATABASE_URL || ADMIN_PG_URL;
  const redisUrl = process.env.REDIS_URL || REDIS_URL;
  backend = await postgresBackend({ adminUrl, redisUrl, label: 'soak' });
  const workspaces = Math.min(
    KEY_COUNT,
    Math.max(1, Math.ceil((MINUTES * 60 * SCORE_CEILING_RPS) / (ENTERPRISE_DAILY * 0.9))),
  );
  const pepper = randomBytes(32).toString('hex');
  const seeded = await seed(
    { databaseUrl: backend.databaseUrl, dataDir: backend.dataDir, pepper },
    data,
    KEY_COUNT,
    workspaces,
  );
  log(
    `seeded ${seeded.rows} summaries and ${seeded.keys.length} enterprise keys in ${workspaces} workspace(s) in ${seeded.seedMs} ms`,
  );

  const port = await freePort();
  const spawnedAt = performance.now();
  const child = startNode(
    'service (postgres+redis)',
    buildService(ROOT),
    startScriptEnv(ROOT, serviceEnv({ API_KEY_PEPPER: pepper, ...backend.env, PORT: String(port) })),
    [],
    ROOT,
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  const readyMs = await waitReady(child, `${baseUrl}/readyz`, spawnedAt);
  const pid = child.proc.pid;
  const rssReady = memoryOf(pid)?.rssMb ?? null;
  log(`ready in ${readyMs} ms, RSS ${rssReady} MB`);

  allScenarios = scenarios('');
  const hot = data.ips.slice(0, HOT_IPS);
  const written = await preWrite(baseUrl, hot, seeded.keys);
  log(`pre-wrote ${written} reports and ratings about ${hot.length} IPs`);
  const { lists, kindOf } = mixedLists(data.ips, hot, seeded.keys);
  // One request of each kind (each analyst document) first: a broken endpoint stops the soak before it starts.
  for (const [k, [name]] of MIX.entries()) {
    const s = all()[name];
    for (const req of lists[0]!.filter((r) => kindOf.get(r) === k).slice(0, name === 'analyst-graphql' ? 4 : 1)) {
      const p = await probe(baseUrl, req, s.graphql);
      if (!p.ok) throw new Error(`${s.label}: ${p.reason}\nrequest: ${String(req.body).slice(0, 300)}`);
    }
  }
  const probeScores = 1;
  attach(lists, kindOf);
  if (lines[0]?.label !== all()['score-rest'].label)
    throw new Error(`the first line must be score (the pattern starts with it), got ${lines[0]?.label}`);

  // The soak's own database handle writes a new publication every REPUBLISH_MIN, as the publisher would.
  const db = await openDatabase({ databaseUrl: backend.databaseUrl, dataDir: backend.dataDir });
  const republished: Array<{ atS: number; ms: number }> = [];
  let republishing = false;
  let republishFailures = 0;

  const rssSamples: Array<{ s: number; mb: number }> = [];
  const rows: IntervalRow[] = [];
  const rssStart = memoryOf(pid)?.rssMb ?? null;
  const loadStart = performance.now();
  const elapsedS = () => (performance.now() - loadStart) / 1000;
  const instance = autocannon({
    url: baseUrl,
    connections: CONNECTIONS,
    duration: MINUTES * 60 + 3600,
    timeout: 10,
    method: 'POST',
    headers: lists[0]![0]!.headers!,
    body: lists[0]![0]!.body as string,
    setupClient: (() => {
      let next = 0;
      return (client) => client.setRequests(lists[next++ % lists.length]!);
    })(),
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => onResponse(ms));
  instance.on('reqError', (e: Error & { code?: string }) => {
    const key =
      e.message === 'request timed out' ? 'timeout (no answer in 10 s)' : `connection error ${e.code ?? e.message}`;
    fail(`(any request): ${key}`, e.message);
  });
  win = newWindow();

  const rssTimer = setInterval(() => {
    const m = memoryOf(pid);
    if (m) rssSamples.push({ s: elapsedS(), mb: m.rssMb });
  }, RSS_SAMPLE_MS);
  const republishTimer =
    REPUBLISH_MIN > 0
      ? setInterval(() => {
          if (republishing) return;
          republishing = true;
          const atS = elapsedS();
          const t0 = performance.now();
          void writePublication(db.prisma, data, seeded.workspaceId, new Date())
            .then(() => prunePublications(db.prisma, 3))
            .then(() => {
              republished.push({ atS, ms: Math.round(performance.now() - t0) });
              log(`new publication written in ${Math.round(performance.now() - t0)} ms`);
            })
            .catch((e) => {
              republishFailures++;
              log(`republish failed: ${String(e)}`);
            })
            .finally(() => {
              republishing = false;
            });
        }, REPUBLISH_MIN * 60_000)
      : null;

  await new Promise<void>((resolve) => {
    let fromS = 0;
    const tick = setInterval(() => {
      const m = memoryOf(pid);
      if (m) rssSamples.push({ s: elapsedS(), mb: m.rssMb });
      const row = closeWindow(fromS, m?.rssMb ?? null);
      fromS = row.toS;
      rows.push(row);
      log(
        `${mmss(row.fromS)}–${mmss(row.toS)}: ${row.rps} req/s, p50 ${fmt(row.p50, 2)} ms, p99 ${fmt(row.p99, 2)} ms, score p99 ${fmt(row.scoreP99, 2)} ms, ` +
          `errors ${row.errors}${row.errors ? ` ${JSON.stringify(Object.fromEntries(row.failures))}` : ''}, RSS ${m?.rssMb ?? '—'} MB`,
      );
      if (child.proc.exitCode !== null || child.proc.signalCode !== null) {
        clearInterval(tick);
        log(`the service exited (${child.proc.exitCode ?? child.proc.signalCode}):\n${child.stderr()}`);
        resolve();
      } else if (rows.length >= INTERVALS) {
        clearInterval(tick);
        resolve();
      }
    }, INTERVAL_S * 1000);
  });
  const loadS = elapsedS();
  instance.stop();
  clearInterval(rssTimer);
  if (republishTimer) clearInterval(republishTimer);
  await instance;
  while (republishing) await new Promise((r) => setTimeout(r, 200));
  await db.close();
  const exited = child.proc.exitCode !== null || child.proc.signalCode !== null;
  const rssEnd = rows.at(-1)?.rssMb ?? null;
  const peak = memoryOf(pid)?.peakMb ?? null;

  await new Promise((r) => setTimeout(r, 1000)); // requests cut off by stop() finish on the server
  const startDay = new Date(Date.now() - loadS * 1000).toISOString().slice(0, 10);
  const meter = exited ? null : await meteredScores(baseUrl, seeded.keys, workspaces, data.ips[0]!);
  const sameDay = startDay === new Date().toISOString().slice(0, 10);

  // ------------------------------------------------------------------ the markdown
  const totalRequests = rows.reduce((a, r) => a + r.requests, 0);
  const totalErrors = [...failureTotals.values()].reduce((a, f) => a + f.count, 0);
  const verdict = rssVerdict(rssSamples, loadS);
  const shown = lines.map((_, i) => i).sort((a, b) => lines[a]!.kind - lines[b]!.kind || a - b); // in the order of MIX
  const uncoded = [...failureTotals.keys()].filter((k) =>
    / 5\d\d | \(no error code\)|timeout|connection error/.test(` ${k}`),
  );
  const meterOk =
    meter && sameDay
      ? meter.counted >= scoreOk + probeScores && meter.counted <= scoreOk + probeScores + CONNECTIONS
      : null;
  const pass =
    !exited && totalErrors === 0 && verdict?.bounded === true && meterOk !== false && republishFailures === 0;
  const md: string[] = [
    `### Soak — \`npm run soak\`, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${fmt(loadS / 60, 1)} min on PostgreSQL + Redis`,
    '',
    `Machine: ${machine}.`,
    `Data: ${data.ips.length.toLocaleString('en-US')} announced IPv4 addresses → one published summary set of ${seeded.rows.toLocaleString('en-US')} entities ` +
      `(as \`npm run bench\`); ${KEY_COUNT} enterprise keys over ${workspaces} workspace(s) (the daily quota is per workspace: sized so it cannot run out); ` +
      `${written.toLocaleString('en-US')} reports and ratings written about ${hot.length.toLocaleString('en-US')} "hot" IPs before the load.`,
    `Load: autocannon, ${CONNECTIONS} connections without pause; each connection sends a fixed interleaved sequence of ` +
      `${MIX.map(([n, w]) => `${Math.round((w / 20) * 100)}% ${all()[n].label}`).join(', ')} ` +
      `(score over all IPs; rate, report and the analyst reads — a subject walked three hops, a filtered report page, an IP's ratings with its dimensions, ` +
      `the aggregates, in turn — over the hot IPs). ` +
      (REPUBLISH_MIN > 0
        ? `Every ${REPUBLISH_MIN} min a new publication of the same ${seeded.rows.toLocaleString('en-US')} entities is written and old ones pruned, so the server swaps its snapshot under load ` +
          `(${republished.length} written: ${republished.map((r) => `at ${mmss(r.atS)} in ${fmt(r.ms / 1000, 1)} s`).join(', ') || 'none'}` +
          `${republishFailures ? `; ${republishFailures} FAILED, see the log` : ''}). `
        : '') +
      `Sampled every ${INTERVAL_S} s; latencies from every response; RSS is the server process's VmRSS (read every ${RSS_SAMPLE_MS / 1000} s, ${rssSamples.length} samples).`,
    '',
    '| interval | req/s | p50 ms | p99 ms | score p99 ms | errors | RSS MB |',
    '|---|--:|--:|--:|--:|--:|--:|',
    ...rows.map(
      (r) =>
        `| ${mmss(r.fromS)}–${mmss(r.toS)} | ${fmt(r.rps)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${fmt(r.scoreP99, 2)} | ${fmt(r.errors)} | ${fmt(r.rssMb)} |`,
    ),
    '',
    `| p99 ms by request | ${shown.map((i) => lines[i]!.label.replace(/^analyst graph GraphQL reads: /, 'analyst ')).join(' | ')} |`,
    `|---|${shown.map(() => '--:').join('|')}|`,
    ...rows.map((r) => `| ${mmss(r.fromS)}–${mmss(r.toS)} | ${shown.map((i) => fmt(r.lineP99[i]!, 1)).join(' | ')} |`),
    '',
    '| request | share | responses | p50 ms | p99 ms | errors |',
    '|---|--:|--:|--:|--:|--:|',
    ...shown
      .map((i) => lines[i]!)
      .map((l) => {
        const sorted = l.lat.sorted();
        const sent = lines.reduce((a, x) => a + x.sent, 0);
        return `| ${l.label} | ${fmt((l.sent / sent) * 100, 1)}% | ${fmt(sorted.length)} | ${fmt(percentile(sorted, 0.5), 2)} | ${fmt(percentile(sorted, 0.99), 2)} | ${fmt(l.failed)} |`;
      }),
    `| all | 100% | ${fmt(totalRequests)} | | | ${fmt(totalErrors)} |`,
    '',
    totalErrors === 0
      ? '**Errors:** none (no non-2xx answer, no GraphQL error, no timeout or connection error).'
      : `**Errors:** ${fmt(totalErrors)} of ${fmt(totalRequests)}${uncoded.length ? ` (5xx, uncoded, timeouts or connection errors among them: ${uncoded.join('; ')})` : ''}:\n\n` +
        [...failureTotals]
          .map(([k, f]) => `- ${k} × ${fmt(f.count)} — e.g. \`${f.example.replace(/`/g, "'").replace(/\s+/g, ' ')}\``)
          .join('\n'),
    '',
    `**RSS:** ${fmt(rssReady)} MB when ready, ${fmt(rssStart)} MB after the pre-writes (start of load), ${fmt(rows[0]?.rssMb ?? null)} MB after the first interval, ` +
      `${fmt(rssEnd)} MB at the end; peak (VmHWM) ${fmt(peak)} MB. ` +
      (verdict
        ? `Middle third: floor ${fmt(verdict.middle.floor)} MB, median ${fmt(verdict.middle.median)} MB; last third: floor ${fmt(verdict.last.floor)} MB, median ${fmt(verdict.last.median)} MB. ` +
          `Floor growth ${verdict.growth >= 0 ? '+' : ''}${fmt(verdict.growth * 100, 1)}% (least-squares slope over both thirds ${fmt(verdict.slopeMbPerMin, 1)} MB/min) ` +
          `→ **${verdict.bounded ? 'bounded' : 'GROWING'}** (bounded: the last third's floor — 10th percentile of the ${RSS_SAMPLE_MS / 1000}-second samples — less than ` +
          `${Math.round(RSS_GROWTH_LIMIT * 100)}% above the middle third's; the first third is warm-up).`
        : 'Too few samples for a verdict.'),
    '',
    meter === null
      ? '**Metering:** not checked (the service exited).'
      : `**Metering:** the quota counters hold ${fmt(meter.counted)} score calls; the load received ${fmt(scoreOk)} successful score answers ` +
        `(+${probeScores} probe; up to ${CONNECTIONS} more may have been in flight when the load stopped) → ${meterOk === null ? 'not compared' : meterOk ? 'consistent' : 'INCONSISTENT'}` +
        `${sameDay ? '' : ' (the run crossed 00:00 UTC: the counters restarted, so this comparison does not hold)'}; ` +
        `daily limit ${fmt(meter.dailyLimit)} per workspace; publication version at the end ${meter.version ?? '—'}.`,
    '',
    `**Verdict: ${pass ? 'PASS' : 'FAIL'}**${exited ? ' — the service exited during the soak' : ''} (PASS needs: no errors, RSS bounded, metering consistent, every publication written). ` +
      'Figures move 10–25% between runs on a shared machine; the load generator shares the CPU with the server, PostgreSQL and Redis.',
  ];
  const text = md.join('\n');
  console.log(text);
  const saved = path.join(ROOT, 'bench', 'results', 'soak-latest.md');
  mkdirSync(path.dirname(saved), { recursive: true });
  writeFileSync(saved, `${text}\n`);
  log(`saved ${path.relative(ROOT, saved)}`);
  if (!pass) process.exitCode = 1;
}

try {
  await main();
} catch (e) {
  log(`failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
