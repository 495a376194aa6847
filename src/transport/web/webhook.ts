import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebDeps } from './context.ts';
import { AppError } from '../../errors.ts';
import { WebhookRejected } from '../../domain/billing/provider.ts';
import { applyEvent } from '../../domain/billing/webhook-events.ts';
import { readBody } from '../http/body.ts';
import { sendJson } from '../http/send.ts';
import type { Handler } from '../http/server.ts';

/**
 * POST /webhooks/paypal. Forged, stale or unsigned deliveries → 400 and nothing changes.
 * A verified event → 200 whatever its outcome (replayed, mismatched, ...): the provider
 * must not retry an event we deliberately ignored. Refusals are REST-shaped errors (the HTTP server renders them).
 */
export function webhookHandler(deps: WebDeps): Handler {
  return (req, res) => handleWebhook(deps, req, res);
}

async function handleWebhook(deps: WebDeps, req: IncomingMessage, res: ServerResponse) {
  const provider = deps.billing.provider;
  if (!provider) throw new AppError('not_found', 'No payment provider is configured.');
  if (req.method !== 'POST')
    throw new AppError('method_not_allowed', 'POST only.', undefined, undefined, { allow: 'POST' });
  const raw = await readBody(req, 256 * 1024);
  let event;
  try {
    event = await provider.verifyWebhook(req.headers, raw);
  } catch (e) {
    if (!(e instanceof WebhookRejected)) throw e;
    deps.log.audit('webhook rejected', { provider: provider.name, reason: e.message });
    throw new AppError('invalid_signature', e.message);
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
