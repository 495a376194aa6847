import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { loadConfig } from '../../src/config.ts';
import { createApp, type App } from '../../src/app.ts';
import { createLogger } from '../../src/log.ts';
import { startDevProvider, type DevProvider } from '../../src/cli/dev-provider.ts';
import { freshEnvironment, type TestEnv } from '../helpers/backend.ts';

/** A server with the control plane wired to the dev provider (PayPal test double) and a real in-process SMTP server. */
export type Received = { to: string; raw: string; text: string };
export type ControlPlaneHarness = { url: string; app: App; provider: DevProvider; mail: Received[]; logs: string[]; mailTo(to: string): Promise<Received>; close(): Promise<void> };

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Quoted-printable soft breaks and escapes, so URLs read out of the message are whole. */
export function decodeQuotedPrintable(s: string): string {
  return s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

export async function startControlPlane(opts: { smtp?: boolean } = {}): Promise<ControlPlaneHarness> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const provider = await startDevProvider({ webhookUrl: `${url}/webhooks/paypal`, clientId: 'cid', clientSecret: 'csecret', webhookId: 'WH-TEST' });
  const mail: Received[] = [];
  const waiting: Array<{ to: string; resolve: (m: Received) => void }> = [];
  const arrived = (m: Received) => {
    mail.push(m);
    for (const w of waiting.splice(0)) { if (m.to === w.to) w.resolve(m); else waiting.push(w); }
  };
  const mailTo = (to: string) => new Promise<Received>((resolve) => {
    const have = mail.find((m) => m.to === to);
    if (have) resolve(have); else waiting.push({ to, resolve });
  });
  let smtp: SMTPServer | null = null;
  let smtpPort = 0;
  if (opts.smtp !== false) {
    smtp = new SMTPServer({
      authOptional: true, disabledCommands: ['STARTTLS', 'AUTH'], logger: false,
      onData(stream, session, cb) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          arrived({ to: session.envelope.rcptTo.map((r) => r.address).join(','), raw, text: decodeQuotedPrintable(raw) });
          cb();
        });
      },
    });
    await new Promise<void>((r) => smtp!.listen(0, '127.0.0.1', () => r()));
    smtpPort = (smtp.server.address() as AddressInfo).port;
  }
  let env: TestEnv | null = null;
  try {
    env = await freshEnvironment({
      BASE_URL: url, PAYPAL_API_BASE: provider.url, PAYPAL_CLIENT_ID: 'cid', PAYPAL_CLIENT_SECRET: 'csecret', PAYPAL_WEBHOOK_ID: 'WH-TEST',
      PAYPAL_PLANS: 'developer=P-DEV,startup=P-START', PAYPAL_CERT_CA_FILE: provider.caFile, ...(smtp ? { SMTP_URL: `smtp://127.0.0.1:${smtpPort}` } : {}),
    });
    const logs: string[] = [];
    const app = await createApp(loadConfig({ ...env.env, LOG_LEVEL: 'debug' }), { log: createLogger('debug', (l) => logs.push(l)) });
    await app.listen(port, '127.0.0.1');
    const e = env;
    return {
      url, app, provider, mail, logs, mailTo,
      async close() {
        await app.close();
        await provider.close();
        if (smtp) await new Promise<void>((r) => smtp!.close(() => r()));
        await e.cleanup();
      },
    };
  } catch (err) {
    await provider.close();
    if (smtp) smtp.close();
    await env?.cleanup();
    throw err;
  }
}

/** A cookie-keeping HTTP client that behaves like a browser's form posts (no redirects followed). */
export class Browserish {
  cookies = new Map<string, string>();
  constructor(readonly base: string) {}
  async request(path: string, init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...init.headers };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (init.form) { body = new URLSearchParams(init.form).toString(); headers['content-type'] = 'application/x-www-form-urlencoded'; }
    const res = await fetch(this.base + path, { method: init.method ?? (init.form ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq), value = pair!.slice(eq + 1);
      if (value === '') this.cookies.delete(name); else this.cookies.set(name, value);
    }
    return { status: res.status, headers: res.headers, text: await res.text() };
  }
  /** The CSRF token of the last page's forms. */
  static csrf(page: string): string {
    const m = /name="_csrf" value="([^"]+)"/.exec(page);
    if (!m) throw new Error(`no CSRF field in page: ${page.slice(0, 300)}`);
    return m[1]!;
  }
  async register(email: string, password = 'correct horse battery') {
    const form = await this.request('/workspace/register');
    return this.request('/workspace/register', { form: { _csrf: Browserish.csrf(form.text), email, password } });
  }
  async csrfOf(path: string) { return Browserish.csrf((await this.request(path)).text); }
}
