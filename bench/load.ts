/**
 * One measured load run with autocannon, and the one-request probe that decides whether a
 * scenario can run at all. Latency percentiles come from every response's own duration (float
 * ms): autocannon's histogram rounds to whole milliseconds, too coarse for sub-ms servers.
 */
import autocannon, { type Request } from 'autocannon';

export type Measured = {
  rps: number; p50: number; p99: number; requests: number;
  /** non-2xx responses + GraphQL bodies with errors (MCP: tool errors) + connection errors/timeouts. */
  failed: number;
  statuses: Record<string, number>;
};

export type Probe = { ok: true } | { ok: false; reason: string };

/** Sends one request as the load would; 404 or a GraphQL validation error means "not built yet". */
export async function probe(baseUrl: string, req: Request, graphql: boolean, mcp = false): Promise<Probe> {
  const res = await fetch(baseUrl + req.path, { method: 'POST', headers: req.headers, body: req.body as string, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  if (res.status === 404) return { ok: false, reason: 'endpoint not available (404)' };
  let parsed: { errors?: Array<{ message?: string; extensions?: { code?: string } }>; error?: string; result?: { isError?: boolean } } = {};
  try { parsed = JSON.parse(text); } catch { /* reported below */ }
  if (mcp && (parsed.error || parsed.result?.isError)) return { ok: false, reason: `probe failed: ${res.status} ${text.slice(0, 200)}` };
  const gqlError = graphql ? parsed.errors?.[0] : undefined;
  if (gqlError && (gqlError.extensions?.code === 'GRAPHQL_VALIDATION_FAILED' || /^Cannot query field|^Unknown type/.test(gqlError.message ?? ''))) {
    return { ok: false, reason: `endpoint not available (${gqlError.message})` };
  }
  if (res.status < 200 || res.status > 299 || gqlError) {
    return { ok: false, reason: `probe failed: ${res.status} ${parsed.error ?? gqlError?.extensions?.code ?? gqlError?.message ?? text.slice(0, 120)}` };
  }
  return { ok: true };
}

export function percentile(sorted: Float64Array | Float32Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

export async function measure(
  baseUrl: string, lists: Request[][], opts: { connections: number; durationS: number; graphql: boolean; mcp?: boolean | undefined; record: boolean },
): Promise<Measured> {
  let next = 0;
  let latencies = new Float64Array(1 << 18);
  let count = 0;
  let gqlErrors = 0;
  const marker = opts.graphql ? '"errors"' : opts.mcp ? '"isError":true' : null;
  const instance = autocannon({
    url: baseUrl, connections: opts.connections, duration: opts.durationS, timeout: 10,
    method: 'POST', headers: lists[0]![0]!.headers!, body: lists[0]![0]!.body as string,
    setupClient: (client) => client.setRequests(lists[next++ % lists.length]!),
    ...(marker ? { verifyBody: (body: string) => !body.includes(marker) || (gqlErrors++, false) } : {}),
  });
  if (opts.record) {
    instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => {
      if (count === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[count++] = ms;
    });
  }
  const r = await instance;
  const sorted = latencies.subarray(0, count).sort();
  const statuses = Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, s.count]));
  return {
    rps: Math.round((r['2xx'] + r.non2xx) / r.duration), p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99),
    requests: r['2xx'] + r.non2xx, failed: r.non2xx + gqlErrors + r.errors, statuses,
  };
}
