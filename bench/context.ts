/**
 * The contextual case's data: the bench workspace rates each of `ips` twice and reports it once,
 * through the service's own REST endpoints (the same bodies as the rate/report rows), so whatever the
 * service keeps of a workspace's memory is written exactly as in production, on either backend.
 * Any refused write stops the bench: a contextual row over missing memory would be measured wrong.
 */
import { requestsOf, type Request, type Scenario, type ScenarioName } from './scenarios.ts';

const CONCURRENCY = 16;

export async function writeWorkspaceMemory(
  baseUrl: string, all: Record<ScenarioName, Scenario>, ips: readonly string[], keys: readonly string[],
): Promise<{ writes: number; ms: number }> {
  const started = performance.now();
  // n = i, n + count: two ratings per IP (requestsOf's stride visits every IP once per `ips.length` requests).
  const writes: Request[] = [
    ...requestsOf(all.rate, ips, keys, ips.length * 2),
    ...requestsOf(all.report, ips, keys, ips.length),
  ];
  let next = 0;
  const worker = async () => {
    while (next < writes.length) {
      const r = writes[next++]!;
      const res = await fetch(baseUrl + r.path, { method: 'POST', headers: r.headers, body: r.body!, signal: AbortSignal.timeout(30_000) });
      const text = await res.text();
      if (res.status < 200 || res.status > 299) throw new Error(`writing the workspace's memory: ${r.path} answered ${res.status} ${text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { writes: writes.length, ms: Math.round(performance.now() - started) };
}
