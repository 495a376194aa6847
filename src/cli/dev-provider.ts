import { createServer, type Server, type ServerResponse } from 'node:http';
import { createSign, randomUUID, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { UsageError } from './command-line.ts';
import type { AddressInfo } from 'node:net';
import { signedString, SIGNING_CERT_NAMES } from '../domain/billing/paypal-signature.ts';
import { createRootCa, loadCa, type Issued } from './dev-pki.ts';

/**
 * A TEST DOUBLE of PayPal Subscriptions for development and tests — never a payment provider.
 * It speaks the wire protocol the production adapter (src/domain/billing/paypal.ts) uses:
 * OAuth token, POST /v1/billing/subscriptions with an `approve` link, POST
 * /v1/billing/subscriptions/{id}/cancel (204, then a CANCELLED webhook, as PayPal does), and signed
 * BILLING.SUBSCRIPTION.* webhooks (SHA256withRSA over the CRC32 string, certificate chain served at
 * /v1/notifications/certs/...). Opening the approval URL approves and sends ACTIVATED.
 * Its certificates come from its own CA (made with the openssl command): root → intermediate →
 * leaf naming messageverificationcerts.paypal.com; the chain is served leaf first, like PayPal's.
 * The server trusts it only when told to: PAYPAL_CERT_CA_FILE=<caFile>.
 */
export type DevProviderOptions = {
  port?: number;
  host?: string;
  webhookUrl: string;
  clientId: string;
  clientSecret: string;
  webhookId: string;
  /** Keep the root CA here (ca.pem, ca-key.pem), reused across runs so PAYPAL_CERT_CA_FILE stays valid; default: a temporary directory. */
  caDir?: string;
};
type Sub = { id: string; planId: string; customId: string; status: string; returnUrl: string; cancelReason?: string };

const DAY = 86_400_000;

/** The root CA: from `dir` when it holds one valid for another day, otherwise made (and kept there). */
function rootCa(dir: string): Issued {
  const certFile = path.join(dir, 'ca.pem'),
    keyFile = path.join(dir, 'ca-key.pem');
  if (existsSync(certFile) && existsSync(keyFile)) {
    const cert = readFileSync(certFile, 'utf8');
    if (Date.parse(new X509Certificate(cert).validTo) > Date.now() + DAY)
      return loadCa(cert, readFileSync(keyFile, 'utf8'));
  }
  const ca = createRootCa('risk-api dev provider root CA (test double)');
  mkdirSync(dir, { recursive: true });
  writeFileSync(keyFile, ca.key, { mode: 0o600 });
  writeFileSync(certFile, ca.cert);
  return ca;
}

export type DevProvider = {
  url: string;
  server: Server;
  subscriptions: Map<string, Sub>;
  /** The root CA file to trust (PAYPAL_CERT_CA_FILE), and the root itself (tests issue more certificates with it). */
  caFile: string;
  ca: Issued;
  /** Every cancel call received, in order, with the status answered. */
  cancelCalls: Array<{ id: string; reason: string; status: number }>;
  /** Every request the double answered, in order (the REST API, certificate fetches, approvals). */
  requests: Array<{ method: string; path: string; status: number }>;
  /**
   * While on, the REST API (token, subscriptions, cancel) is down: it answers 503 as PayPal does in an
   * outage (`status`, the default), or drops each connection unanswered, as an unreachable host does (`reset`).
   */
  setOutage(on: boolean, how?: 'status' | 'reset'): void;
  /** Forgets every access token issued: the next call with one gets 401, as with a token PayPal revoked or expired early. */
  revokeTokens(): void;
  /** While on, every access token is refused with 401, even a fresh one. */
  refuseTokens(on: boolean): void;
  /** Serves a PEM document at /v1/notifications/certs/<name> (for deliveries signed with other chains). */
  serveCertificate(name: string, pem: string): void;
  /** A new signing key and certificate behind the same URL (CERT-dev), as when PayPal rotates its certificate; later deliveries are signed with it. */
  rotateCertificate(): void;
  /**
   * Sends a signed webhook for a subscription; `tweak` lets tests forge, age or alter a delivery, sign with another
   * served chain (`cert`), or name any PAYPAL-CERT-URL (`certUrl`).
   */
  sendEvent(
    subId: string,
    eventType: string,
    tweak?: {
      id?: string;
      createTime?: string;
      transmissionTime?: string;
      planId?: string;
      customId?: string;
      signWith?: string;
      tamper?: boolean;
      cert?: string;
      certUrl?: string;
    },
    // biome-ignore lint/suspicious/noExplicitAny: the service's JSON answer, read by the tests that drive this provider
  ): Promise<{ status: number; body: any; eventId: string }>;
  /** Resolves when the webhooks the double sends by itself (after a cancel) have been answered. */
  idle(): Promise<void>;
  close(): Promise<void>;
};

export async function startDevProvider(o: DevProviderOptions): Promise<DevProvider> {
  const tempDir = o.caDir ? null : mkdtempSync(path.join(tmpdir(), 'dev-provider-'));
  const caDir = o.caDir ?? tempDir!;
  const ca = rootCa(caDir);
  const intermediate = ca.issue({
    cn: 'risk-api dev provider intermediate CA (test double)',
    ca: true,
    notAfter: new Date(Date.now() + 90 * DAY),
  });
  const newLeaf = () => intermediate.issue({ cn: SIGNING_CERT_NAMES[0], dns: [SIGNING_CERT_NAMES[0]] });
  let leaf = newLeaf();
  const certs = new Map<string, string>([['CERT-dev', leaf.cert + intermediate.cert]]);
  const subs = new Map<string, Sub>();
  const tokens = new Set<string>();
  const cancelCalls: DevProvider['cancelCalls'] = [];
  const inFlight = new Set<Promise<unknown>>();
  const requests: DevProvider['requests'] = [];
  let outage: false | 'status' | 'reset' = false;
  let refuseAllTokens = false;
  let url = '';
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const authorized = (h: string | undefined) => !refuseAllTokens && tokens.has((h ?? '').replace(/^Bearer /, ''));

  async function sendEvent(subId: string, eventType: string, t: Parameters<DevProvider['sendEvent']>[2] = {}) {
    const sub = subs.get(subId);
    if (!sub) throw new Error(`no subscription ${subId}`);
    const eventId = t.id ?? `WH-${randomUUID()}`;
    const body = Buffer.from(
      JSON.stringify({
        id: eventId,
        event_version: '1.0',
        create_time: t.createTime ?? new Date().toISOString(),
        resource_type: 'subscription',
        event_type: eventType,
        resource: {
          id: sub.id,
          plan_id: t.planId ?? sub.planId,
          custom_id: t.customId ?? sub.customId,
          status: sub.status,
        },
      }),
    );
    const transmissionId = randomUUID();
    const transmissionTime = t.transmissionTime ?? new Date().toISOString();
    const signature = createSign('RSA-SHA256')
      .update(signedString(transmissionId, transmissionTime, o.webhookId, body))
      .sign(t.signWith ?? leaf.key, 'base64');
    const sent = t.tamper ? Buffer.from(body.toString().replace(sub.customId, `${sub.customId}X`)) : body;
    const res = await fetch(o.webhookUrl, {
      method: 'POST',
      body: sent,
      headers: {
        'content-type': 'application/json',
        'paypal-transmission-id': transmissionId,
        'paypal-transmission-time': transmissionTime,
        'paypal-transmission-sig': signature,
        'paypal-auth-algo': 'SHA256withRSA',
        'paypal-cert-url': t.certUrl ?? `${url}/v1/notifications/certs/${t.cert ?? 'CERT-dev'}`,
      },
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* keep text */
    }
    return { status: res.status, body: parsed, eventId };
  }

  /** A webhook the double sends on its own, after answering (PayPal notifies asynchronously too). */
  function notifyLater(subId: string, eventType: string) {
    const p: Promise<unknown> = new Promise((r) => setImmediate(r))
      .then(() => sendEvent(subId, eventType))
      .catch(() => {})
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }

  const server = createServer(async (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    res.on('finish', () => requests.push({ method: req.method ?? '', path: u.pathname, status: res.statusCode }));
    const chunks: Buffer[] = [];
    for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
    const raw = Buffer.concat(chunks).toString('utf8');
    const api = u.pathname === '/v1/oauth2/token' || u.pathname.startsWith('/v1/billing/');
    if (api && outage === 'reset') return void req.socket.destroy();
    if (api && outage)
      return json(res, 503, { name: 'SERVICE_UNAVAILABLE', message: 'Service Unavailable (dev provider outage)' });
    if (req.method === 'POST' && u.pathname === '/v1/oauth2/token') {
      const expected = `Basic ${Buffer.from(`${o.clientId}:${o.clientSecret}`).toString('base64')}`;
      if (req.headers.authorization !== expected) return json(res, 401, { error: 'invalid_client' });
      const token = `A21-${randomUUID()}`;
      tokens.add(token);
      return json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 32400 });
    }
    if (req.method === 'POST' && u.pathname === '/v1/billing/subscriptions') {
      if (!authorized(req.headers.authorization)) return json(res, 401, { name: 'AUTHENTICATION_FAILURE' });
      const b = JSON.parse(raw) as {
        plan_id: string;
        custom_id: string;
        application_context?: { return_url?: string };
      };
      const id = `I-${randomUUID().replace(/-/g, '').slice(0, 12).toUpperCase()}`;
      subs.set(id, {
        id,
        planId: b.plan_id,
        customId: b.custom_id,
        status: 'APPROVAL_PENDING',
        returnUrl: b.application_context?.return_url ?? '',
      });
      return json(res, 201, {
        id,
        status: 'APPROVAL_PENDING',
        plan_id: b.plan_id,
        custom_id: b.custom_id,
        links: [
          { href: `${url}/checkoutnow?ba_token=${id}`, rel: 'approve', method: 'GET' },
          { href: `${url}/v1/billing/subscriptions/${id}`, rel: 'self', method: 'GET' },
        ],
      });
    }
    const cancel = /^\/v1\/billing\/subscriptions\/([^/]+)\/cancel$/.exec(u.pathname);
    if (req.method === 'POST' && cancel) {
      const id = decodeURIComponent(cancel[1]!);
      let reason: unknown;
      try {
        reason = (JSON.parse(raw) as { reason?: unknown }).reason;
      } catch {
        /* checked below */
      }
      const answer = (status: number, body?: unknown) => {
        cancelCalls.push({ id, reason: String(reason ?? ''), status });
        if (body === undefined) {
          res.writeHead(status);
          return res.end();
        }
        return json(res, status, body);
      };
      if (!authorized(req.headers.authorization)) return answer(401, { name: 'AUTHENTICATION_FAILURE' });
      if (typeof reason !== 'string' || reason.length < 1 || reason.length > 128) {
        return answer(400, {
          name: 'INVALID_REQUEST',
          details: [{ field: '/reason', issue: 'MISSING_REQUIRED_PARAMETER' }],
        });
      }
      const sub = subs.get(id);
      if (!sub) return answer(404, { name: 'RESOURCE_NOT_FOUND', details: [{ issue: 'INVALID_RESOURCE_ID' }] });
      if (sub.status !== 'ACTIVE' && sub.status !== 'SUSPENDED') {
        return answer(422, {
          name: 'UNPROCESSABLE_ENTITY',
          details: [
            {
              issue: 'SUBSCRIPTION_STATUS_INVALID',
              description:
                'Invalid subscription status for cancel action; subscription status should be active or suspended.',
            },
          ],
        });
      }
      sub.status = 'CANCELLED';
      sub.cancelReason = reason;
      answer(204);
      return notifyLater(id, 'BILLING.SUBSCRIPTION.CANCELLED');
    }
    const certName = /^\/v1\/notifications\/certs\/([^/]+)$/.exec(u.pathname)?.[1];
    if (req.method === 'GET' && certName && certs.has(certName)) {
      res.writeHead(200, { 'content-type': 'application/x-pem-file' });
      return res.end(certs.get(certName));
    }
    if (req.method === 'GET' && u.pathname === '/checkoutnow') {
      const sub = subs.get(u.searchParams.get('ba_token') ?? '');
      if (!sub) return json(res, 404, { name: 'RESOURCE_NOT_FOUND' });
      sub.status = 'ACTIVE';
      const delivery = await sendEvent(sub.id, 'BILLING.SUBSCRIPTION.ACTIVATED').catch((e) => ({
        status: 0,
        body: String(e),
      }));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(
        `<!doctype html><title>Approved (dev provider)</title><h1>Subscription approved</h1><p>Dev provider test double: webhook answered ${delivery.status}.</p><p><a id="return" href="${sub.returnUrl.replace(/"/g, '&quot;')}">Return to the workspace</a></p>`,
      );
    }
    json(res, 404, { name: 'RESOURCE_NOT_FOUND' });
  });
  await new Promise<void>((resolve) => server.listen(o.port ?? 0, o.host ?? '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    server,
    subscriptions: subs,
    caFile: path.join(caDir, 'ca.pem'),
    ca,
    cancelCalls,
    requests,
    sendEvent,
    setOutage(on, how = 'status') {
      outage = on ? how : false;
    },
    revokeTokens() {
      tokens.clear();
    },
    refuseTokens(on) {
      refuseAllTokens = on;
    },
    serveCertificate(name, pem) {
      certs.set(name, pem);
    },
    rotateCertificate() {
      leaf = newLeaf();
      certs.set('CERT-dev', leaf.cert + intermediate.cert);
    },
    async idle() {
      while (inFlight.size) await Promise.all([...inFlight]);
    },
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    },
  };
}

/** `npx risk-api dev-provider [--port PORT] [--webhook-url URL] [--ca-dir DIR]` (parsed by command-line.ts): prints the PAYPAL_* settings to start the server with. */
export async function runDevProvider(args: {
  port?: unknown;
  'webhook-url'?: unknown;
  'ca-dir'?: unknown;
}): Promise<void> {
  const port = Number(args.port ?? 8089);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be a port number, not "${String(args.port)}"`, 'dev-provider');
  const p = await startDevProvider({
    port,
    webhookUrl: String(args['webhook-url'] ?? 'http://127.0.0.1:8080/webhooks/paypal'),
    clientId: 'dev-client',
    clientSecret: 'dev-secret',
    webhookId: 'WH-DEV',
    caDir: path.resolve(String(args['ca-dir'] ?? 'data/dev-provider')),
  });
  console.log(
    `dev provider (a PayPal test double, not a payment provider) at ${p.url}\nStart the server with:\n` +
      `  PAYPAL_API_BASE=${p.url} PAYPAL_CLIENT_ID=dev-client PAYPAL_CLIENT_SECRET=dev-secret PAYPAL_WEBHOOK_ID=WH-DEV \\\n` +
      `  PAYPAL_PLANS=developer=P-DEV-DEVELOPER,startup=P-DEV-STARTUP,business=P-DEV-BUSINESS,enterprise=P-DEV-ENTERPRISE \\\n` +
      `  PAYPAL_CERT_CA_FILE=${p.caFile} npm start\n` +
      `(PAYPAL_CERT_CA_FILE trusts this test double's own root CA, kept in ${path.dirname(p.caFile)} across runs: never set it in production.)`,
  );
}
