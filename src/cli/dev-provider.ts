import { createServer, type Server } from 'node:http';
import { createSign, randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { signedString } from '../domain/billing/paypal-signature.ts';

/**
 * A TEST DOUBLE of PayPal Subscriptions for development and tests — never a payment provider.
 * It speaks the wire protocol the production adapter (src/domain/billing/paypal.ts) uses:
 * OAuth token, POST /v1/billing/subscriptions with an `approve` link, and signed
 * BILLING.SUBSCRIPTION.* webhooks (SHA256withRSA over the CRC32 string, certificate served at
 * /v1/notifications/certs/...). Opening the approval URL approves and sends ACTIVATED.
 * Its certificate is self-signed, generated at start with the openssl command.
 */
export type DevProviderOptions = { port?: number; host?: string; webhookUrl: string; clientId: string; clientSecret: string; webhookId: string };
type Sub = { id: string; planId: string; customId: string; status: string; returnUrl: string };

function selfSigned(): { key: string; cert: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'dev-provider-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=dev-provider.local',
      '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
    return { key: readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8') };
  } finally { rmSync(dir, { recursive: true, force: true }); }
}

export type DevProvider = {
  url: string; server: Server; subscriptions: Map<string, Sub>;
  /** Sends a signed webhook for a subscription; `tweak` lets tests forge, age or alter a delivery. */
  sendEvent(subId: string, eventType: string, tweak?: { id?: string; createTime?: string; transmissionTime?: string; planId?: string; customId?: string; signWith?: string; tamper?: boolean }): Promise<{ status: number; body: any; eventId: string }>;
  close(): Promise<void>;
};

export async function startDevProvider(o: DevProviderOptions): Promise<DevProvider> {
  const { key, cert } = selfSigned();
  const subs = new Map<string, Sub>();
  const tokens = new Set<string>();
  let url = '';
  const json = (res: import('node:http').ServerResponse, status: number, body: unknown) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(body)); };

  async function sendEvent(subId: string, eventType: string, t: Parameters<DevProvider['sendEvent']>[2] = {}) {
    const sub = subs.get(subId);
    if (!sub) throw new Error(`no subscription ${subId}`);
    const eventId = t.id ?? `WH-${randomUUID()}`;
    const body = Buffer.from(JSON.stringify({
      id: eventId, event_version: '1.0', create_time: t.createTime ?? new Date().toISOString(), resource_type: 'subscription', event_type: eventType,
      resource: { id: sub.id, plan_id: t.planId ?? sub.planId, custom_id: t.customId ?? sub.customId, status: sub.status },
    }));
    const transmissionId = randomUUID();
    const transmissionTime = t.transmissionTime ?? new Date().toISOString();
    const signature = createSign('RSA-SHA256').update(signedString(transmissionId, transmissionTime, o.webhookId, body)).sign(t.signWith ?? key, 'base64');
    const sent = t.tamper ? Buffer.from(body.toString().replace(sub.customId, `${sub.customId}X`)) : body;
    const res = await fetch(o.webhookUrl, {
      method: 'POST', body: sent,
      headers: {
        'content-type': 'application/json', 'paypal-transmission-id': transmissionId, 'paypal-transmission-time': transmissionTime,
        'paypal-transmission-sig': signature, 'paypal-auth-algo': 'SHA256withRSA', 'paypal-cert-url': `${url}/v1/notifications/certs/CERT-dev`,
      },
    });
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = JSON.parse(text); } catch { /* keep text */ }
    return { status: res.status, body: parsed, eventId };
  }

  const server = createServer(async (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const chunks: Buffer[] = [];
    for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
    const raw = Buffer.concat(chunks).toString('utf8');
    if (req.method === 'POST' && u.pathname === '/v1/oauth2/token') {
      const expected = `Basic ${Buffer.from(`${o.clientId}:${o.clientSecret}`).toString('base64')}`;
      if (req.headers.authorization !== expected) return json(res, 401, { error: 'invalid_client' });
      const token = `A21-${randomUUID()}`;
      tokens.add(token);
      return json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 32400 });
    }
    if (req.method === 'POST' && u.pathname === '/v1/billing/subscriptions') {
      if (!tokens.has((req.headers.authorization ?? '').replace(/^Bearer /, ''))) return json(res, 401, { name: 'AUTHENTICATION_FAILURE' });
      const b = JSON.parse(raw) as { plan_id: string; custom_id: string; application_context?: { return_url?: string } };
      const id = `I-${randomUUID().replace(/-/g, '').slice(0, 12).toUpperCase()}`;
      subs.set(id, { id, planId: b.plan_id, customId: b.custom_id, status: 'APPROVAL_PENDING', returnUrl: b.application_context?.return_url ?? '' });
      return json(res, 201, { id, status: 'APPROVAL_PENDING', plan_id: b.plan_id, custom_id: b.custom_id, links: [
        { href: `${url}/checkoutnow?ba_token=${id}`, rel: 'approve', method: 'GET' }, { href: `${url}/v1/billing/subscriptions/${id}`, rel: 'self', method: 'GET' }] });
    }
    if (req.method === 'GET' && u.pathname === '/v1/notifications/certs/CERT-dev') {
      res.writeHead(200, { 'content-type': 'application/x-pem-file' });
      return res.end(cert);
    }
    if (req.method === 'GET' && u.pathname === '/checkoutnow') {
      const sub = subs.get(u.searchParams.get('ba_token') ?? '');
      if (!sub) return json(res, 404, { name: 'RESOURCE_NOT_FOUND' });
      sub.status = 'ACTIVE';
      const delivery = await sendEvent(sub.id, 'BILLING.SUBSCRIPTION.ACTIVATED').catch((e) => ({ status: 0, body: String(e) }));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(`<!doctype html><title>Approved (dev provider)</title><h1>Subscription approved</h1><p>Dev provider test double: webhook answered ${delivery.status}.</p><p><a id="return" href="${sub.returnUrl.replace(/"/g, '&quot;')}">Return to the workspace</a></p>`);
    }
    json(res, 404, { name: 'RESOURCE_NOT_FOUND' });
  });
  await new Promise<void>((resolve) => server.listen(o.port ?? 0, o.host ?? '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url, server, subscriptions: subs, sendEvent,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** `npx risk-api dev-provider [--port N] [--webhook-url URL]`: prints the PAYPAL_* settings to start the server with. */
export async function runDevProvider(argv: string[]): Promise<void> {
  const arg = (name: string, fallback: string) => { const i = argv.indexOf(`--${name}`); return i >= 0 && argv[i + 1] ? argv[i + 1]! : fallback; };
  const p = await startDevProvider({
    port: Number(arg('port', '8089')), webhookUrl: arg('webhook-url', 'http://127.0.0.1:8080/webhooks/paypal'),
    clientId: 'dev-client', clientSecret: 'dev-secret', webhookId: 'WH-DEV',
  });
  console.log(`dev provider (a PayPal test double, not a payment provider) at ${p.url}\nStart the server with:\n` +
    `  PAYPAL_API_BASE=${p.url} PAYPAL_CLIENT_ID=dev-client PAYPAL_CLIENT_SECRET=dev-secret PAYPAL_WEBHOOK_ID=WH-DEV \\\n` +
    `  PAYPAL_PLANS=developer=P-DEV-DEVELOPER,startup=P-DEV-STARTUP,business=P-DEV-BUSINESS,enterprise=P-DEV-ENTERPRISE npm start`);
}
