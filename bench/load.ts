/**
 * One measured load run with wrk (Debian's `wrk`: C, epoll, one thread by default), and the
 * one-request probe that decides whether a scenario can run at all. wrk is used instead of
 * autocannon because autocannon (JavaScript) capped the floor row: the generator must not be the
 * bottleneck, and the floor must show its server near a full core.
 *
 * The requests are formatted here, byte for byte, into one file (NUL-separated raw HTTP/1.1
 * requests); a generated Lua script loads them once per wrk thread and returns them in turn, so
 * wrk builds nothing per request. Latency percentiles come from wrk's own histogram (µs
 * resolution, every response), read in the script's `done` callback and printed as one JSON line.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Request } from './scenarios.ts';

export type Measured = {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** non-2xx (wrk counts status > 399) + GraphQL bodies with errors (MCP: tool errors) + socket errors/timeouts. */
  failed: number;
  statuses: Record<string, number>;
};

export type Probe = { ok: true } | { ok: false; reason: string };

export type LoadOptions = {
  connections: number;
  durationS: number;
  /** A body containing this text counts as failed (GraphQL `"errors"`, MCP `"isError":true`); costs wrk a body read per response. */
  failMarker?: string | null | undefined;
  threads?: number | undefined;
  /**
   * Set: a steady load of about this many requests/s in all instead of a closed loop. Each connection waits an
   * exponentially distributed pause (mean connections / rate) before each request, so arrivals are spread like
   * independent clients' rather than sent in bursts; the achieved rate is the row's req/s.
   */
  ratePerSecond?: number | undefined;
};

/** Where wrk is, or null: the bench then stops with how to install it. */
export function wrkPath(): string | null {
  try {
    return execFileSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** Sends one request as the load would; 404 or a GraphQL validation error means "not built yet". */
export async function probe(
  baseUrl: string,
  req: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer },
  graphql: boolean,
  mcp = false,
): Promise<Probe> {
  const res = await fetch(baseUrl + (req.path ?? '/'), {
    method: req.method ?? 'POST',
    headers: req.headers,
    ...(req.body === undefined ? {} : { body: req.body as string }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status === 404) return { ok: false, reason: 'endpoint not available (404)' };
  let parsed: {
    errors?: Array<{ message?: string; extensions?: { code?: string } }>;
    error?: string;
    result?: { isError?: boolean };
  } = {};
  try {
    parsed = JSON.parse(text);
  } catch {
    /* reported below */
  }
  if (mcp && (parsed.error || parsed.result?.isError))
    return { ok: false, reason: `probe failed: ${res.status} ${text.slice(0, 200)}` };
  const gqlError = graphql ? parsed.errors?.[0] : undefined;
  if (
    gqlError &&
    (gqlError.extensions?.code === 'GRAPHQL_VALIDATION_FAILED' ||
      /^Cannot query field|^Unknown type/.test(gqlError.message ?? ''))
  ) {
    return { ok: false, reason: `endpoint not available (${gqlError.message})` };
  }
  if (res.status < 200 || res.status > 299 || gqlError) {
    return {
      ok: false,
      reason: `probe failed: ${res.status} ${parsed.error ?? gqlError?.extensions?.code ?? gqlError?.message ?? text.slice(0, 120)}`,
    };
  }
  return { ok: true };
}

export function percentile(sorted: Float64Array | Float32Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** The raw HTTP/1.1 request wrk sends (what wrk.format would build, done once here). */
function rawRequest(host: string, r: Request): string {
  const body = r.body ?? '';
  const head = [`${r.method ?? 'POST'} ${r.path} HTTP/1.1`, `Host: ${host}`];
  for (const [k, v] of Object.entries(r.headers ?? {})) head.push(`${k}: ${v}`);
  if (body || (r.method ?? 'POST') !== 'GET') head.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${head.join('\r\n')}\r\n\r\n${body}`;
}

/** The Lua script: requests in turn; with a marker, statuses and marked bodies counted per thread, summed in `done`. */
function luaScript(requestsFile: string, marker: string | null, meanPauseMs: number | null): string {
  const counting =
    marker === null
      ? ''
      : `
local bad, statuses = 0, {}
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  if body and string.find(body, ${luaString(marker)}, 1, true) then bad = bad + 1 end
end`;
  return `-- generated by bench/load.ts
local threads = {}
function setup(thread) table.insert(threads, thread) end
local reqs, n, i = {}, 0, 0
function init(args)
  local f = assert(io.open(${luaString(requestsFile)}, "rb"))
  local data = f:read("*a")
  f:close()
  for r in string.gmatch(data, "([^%z]+)") do n = n + 1; reqs[n] = r end
  i = math.random(n) - 1
end
function request()
  i = i % n + 1
  return reqs[i]
end
${meanPauseMs === null ? '' : `function delay() return math.floor(-${meanPauseMs} * math.log(1 - math.random())) end`}
${counting}
function done(summary, latency, requests)
  local bad, statuses = 0, {}
  for _, t in ipairs(threads) do
    bad = bad + (t:get("bad") or 0)
    local s = t:get("statuses")
    if s then for code, count in pairs(s) do statuses[tostring(code)] = (statuses[tostring(code)] or 0) + count end end
  end
  local parts = {}
  for code, count in pairs(statuses) do table.insert(parts, string.format('"%s":%d', code, count)) end
  local e = summary.errors
  io.write(string.format('\\nWRK_RESULT {"requests":%d,"durationUs":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,'
    .. '"p50Us":%d,"p99Us":%d,"maxUs":%d,"bad":%d,"statuses":{%s}}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max, bad, table.concat(parts, ",")))
end
`;
}

const luaString = (s: string) =>
  `"${s.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[^\x20-\x7e]/g, (c) => `\\${c.charCodeAt(0)}`)}"`;

type WrkResult = {
  requests: number;
  durationUs: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  p50Us: number;
  p99Us: number;
  maxUs: number;
  bad: number;
  statuses: Record<string, number>;
};

/** Runs wrk over `requests` (in turn, all connections sharing the rotation) for `durationS`. */
export async function measure(baseUrl: string, requests: Request[], opts: LoadOptions): Promise<Measured> {
  const wrk = wrkPath();
  if (!wrk) throw new Error('wrk is not installed (apt-get install -y wrk)');
  const dir = mkdtempSync(path.join(tmpdir(), 'risk-bench-wrk-'));
  try {
    const host = new URL(baseUrl).host;
    const file = path.join(dir, 'requests.bin');
    writeFileSync(file, requests.map((r) => rawRequest(host, r)).join('\0'));
    const script = path.join(dir, 'load.lua');
    writeFileSync(
      script,
      luaScript(
        file,
        opts.failMarker ?? null,
        opts.ratePerSecond ? (opts.connections * 1000) / opts.ratePerSecond : null,
      ),
    );
    const threads = Math.min(opts.threads ?? 1, opts.connections);
    const args = [
      '-t',
      String(threads),
      '-c',
      String(opts.connections),
      '-d',
      `${opts.durationS}s`,
      '--timeout',
      '10s',
      '--latency',
      '-s',
      script,
      baseUrl,
    ];
    const out = await run(wrk, args, (opts.durationS + 30) * 1000);
    const line = /WRK_RESULT (\{.*\})/.exec(out);
    if (!line) throw new Error(`wrk printed no result:\n${out.slice(-2000)}`);
    const r = JSON.parse(line[1]!) as WrkResult;
    const answered = r.requests;
    const socketErrors = r.connect + r.read + r.write + r.timeout;
    const statuses = opts.failMarker ? r.statuses : r.status ? { '>399': r.status } : {};
    if (socketErrors) statuses['socket errors/timeouts'] = socketErrors;
    return {
      rps: Math.round(answered / (r.durationUs / 1e6)),
      p50: r.p50Us / 1000,
      p99: r.p99Us / 1000,
      requests: answered,
      failed: r.status + r.bad + socketErrors,
      statuses,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function run(cmd: string, args: string[], limitMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    proc.stderr.on('data', (c: Buffer) => {
      out += c.toString();
    });
    const timer = setTimeout(() => proc.kill('SIGKILL'), limitMs);
    proc.once('error', reject);
    proc.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`wrk exited ${code}:\n${out.slice(-2000)}`));
    });
  });
}
