/**
 * The server's event-loop delay over one measured window, read from the service's own Prometheus
 * page (GET /metrics, loopback clients need no token): prom-client's default metrics keep a
 * perf_hooks.monitorEventLoopDelay histogram and reset it at every scrape, so a scrape just before
 * the window starts it afresh and one just after reads the window's p50 / p99 / max.
 * No bench-only code in the service. A server without /metrics (the floors) reads as null.
 */

/** prom-client's default `eventLoopMonitoringPrecision` (ms): the histogram's timer interval. */
const RESOLUTION_MS = 10;

export type LoopDelay = { p50: number; p99: number; max: number };

async function scrape(baseUrl: string): Promise<string | null> {
  try {
    const res = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(5000) });
    const text = await res.text();
    return res.status === 200 ? text : null;
  } catch {
    return null;
  }
}

/** The gauge's value in ms beyond the timer's own interval (the histogram records whole intervals). */
function delayMs(text: string, name: string): number {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text);
  const seconds = m ? Number(m[1]) : NaN;
  return Math.max(0, seconds * 1000 - RESOLUTION_MS);
}

/** Starts a window (resets the histogram); the returned function ends it. Null: the server has no /metrics. */
export async function loopDelayWindow(baseUrl: string): Promise<() => Promise<LoopDelay | null>> {
  const started = await scrape(baseUrl);
  return async () => {
    if (started === null) return null;
    const text = await scrape(baseUrl);
    if (text === null) return null;
    const d = {
      p50: delayMs(text, 'nodejs_eventloop_lag_p50_seconds'),
      p99: delayMs(text, 'nodejs_eventloop_lag_p99_seconds'),
      max: delayMs(text, 'nodejs_eventloop_lag_max_seconds'),
    };
    return Number.isFinite(d.p50) ? d : null;
  };
}
