import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebDeps } from './context.ts';
import { readRaw } from './http.ts';
import { WebhookRejected } from '../../domain/billing/provider.ts';
import { applyEvent } from '../../domain/billing/webhook-events.ts';
import { sendJson } from '../rest/respond.ts';

/**
 * POST /webhooks/paypal. Forged, stale or unsigned deliveries → 400 and nothing changes.
 * A verified event → 200 whatever its outcome (replayed, mismatched, ...): the provider
 * must not retry an event we deliberately ignored.
 */
export async function handleWebhook(deps: WebDeps, req: IncomingMessage, res: ServerResponse) {
  const provider = deps.billing.provider;
  if (!provider) return sendJson(res, 404, { ok: false, error: 'not_found', message: 'No payment provider is configured.' });
  if (req.method !== 'POST') return sendJson(res, 405, { ok: false, error: 'method_not_allowed', message: 'POST only.' }, { allow: 'POST' });
  const raw = await readRaw(req, 256 * 1024);
  let event;
  try {
    event = await provider.verifyWebhook(req.headers, raw);
  } catch (e) {
    if (!(e instanceof WebhookRejected)) throw e;
    deps.log.warn('webhook rejected', { reason: e.message });
    return sendJson(res, 400, { ok: false, error: 'invalid_signature', message: e.message });
  }
  let outcome;
  try {
    outcome = await applyEvent(deps.billing, event);
  } catch (e) {
    // Two deliveries of one event at the same instant: the second loses the unique insert.
    if ((e as { code?: string }).code !== 'P2002') throw e;
    outcome = 'replayed';
  }
  sendJson(res, 200, { ok: true, event: event.id, outcome });
}
