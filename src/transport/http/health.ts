import type { Handler } from './server.ts';
import { sendJson } from './send.ts';

/**
 * GET /healthz: the process answers (liveness). GET /readyz: every dependency answered a ping and the server
 * is not draining (readiness): 200, else 503 with the failing check named.
 */
export function healthRoutes(checks: Record<string, () => Promise<unknown>>, draining: () => boolean): Array<[string, Handler]> {
  const healthz: Handler = async (_req, res) => sendJson(res, 200, { ok: true });
  const readyz: Handler = async (_req, res) => {
    const results: Record<string, string> = {};
    for (const [name, ping] of Object.entries(checks)) {
      try { await ping(); results[name] = 'ok'; } catch { results[name] = 'unreachable'; }
    }
    const ok = Object.values(results).every((v) => v === 'ok') && !draining();
    sendJson(res, ok ? 200 : 503, { ok, checks: results, draining: draining() });
  };
  return [['/healthz', healthz], ['/readyz', readyz]];
}
