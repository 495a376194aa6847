import type { Handler } from './server.ts';
import { sendJson } from './send.ts';

/**
 * GET /healthz: the process answers (liveness). GET /readyz: every dependency answered a ping and the server is
 * not shutting down (readiness): 200, else 503 with the failing check named. From SIGTERM on, `draining` is true:
 * during DRAIN_DELAY_MS the server still serves every request, but a load balancer reading /readyz stops sending
 * new ones before the listener closes (main.ts).
 */
export function healthRoutes(
  checks: Record<string, () => Promise<unknown>>,
  ready: () => boolean,
): Array<[string, Handler]> {
  const healthz: Handler = async (_req, res) => sendJson(res, 200, { ok: true });
  const readyz: Handler = async (_req, res) => {
    const results: Record<string, string> = {};
    for (const [name, ping] of Object.entries(checks)) {
      try {
        await ping();
        results[name] = 'ok';
      } catch {
        results[name] = 'unreachable';
      }
    }
    const draining = !ready();
    const ok = Object.values(results).every((v) => v === 'ok') && !draining;
    sendJson(res, ok ? 200 : 503, { ok, checks: results, draining });
  };
  return [
    ['/healthz', healthz],
    ['/readyz', readyz],
  ];
}
