import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { loadConfig } from '../../src/config.ts';
import { createApp, type App } from '../../src/app.ts';
import { createLogger } from '../../src/platform/log.ts';
import { startDevProvider, type DevProvider } from '../../src/cli/dev-provider.ts';
import { freshEnvironment, type TestEnv } from '../helpers/backend.ts';
import { issueConfirmation } from '../../src/domain/accounts/email-confirmation.ts';
import { confirmAddress } from '../../src/domain/accounts/registration.ts';
import { hashPassword } from '../../src/domain/accounts/password.ts';

/** A server with the control plane wired to the dev provider (PayPal test double) and a real in-process SMTP server. */
export type Received = { to: string; raw: string; text: string };
export type ControlPlaneHarness = {
  url: string;
  app: App;
  provider: DevProvider;
  mail: Received[];
  logs: string[];
  /** The first message to `to` whose text matches (delivered over SMTP, or held in the outbox without SMTP). */
  mailTo(to: string, match?: RegExp): Promise<Received>;
  /** A browser-like client of this server with a network address of its own, reading this server's mail. */
  client(): Browserish;
  close(): Promise<void>;
};
/** Where a client reads its mail: the first message to an address whose text matches. */
export type Inbox = (to: string, match: RegExp) => Promise<{ text: string }>;

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

export async function startControlPlane(
  opts: { smtp?: boolean; env?: Record<string, string> } = {},
): Promise<ControlPlaneHarness> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const provider = await startDevProvider({
    webhookUrl: `${url}/webhooks/paypal`,
    clientId: 'cid',
    clientSecret: 'csecret',
    webhookId: 'WH-TEST',
  });
  const mail: Received[] = [];
  const waiting: Array<{ to: string; match: RegExp; resolve: (m: Received) => void }> = [];
  const arrived = (m: Received) => {
    mail.push(m);
    for (const w of waiting.splice(0)) {
      if (m.to === w.to && w.match.test(m.text)) w.resolve(m);
      else waiting.push(w);
    }
  };
  const waitForMail = (to: string, match: RegExp) =>
    new Promise<Received>((resolve) => {
      const have = mail.find((m) => m.to === to && match.test(m.text));
      if (have) resolve(have);
      else waiting.push({ to, match, resolve });
    });
  let smtp: SMTPServer | null = null;
  let smtpPort = 0;
  if (opts.smtp !== false) {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, cb) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          arrived({
            to: session.envelope.rcptTo.map((r) => r.address).join(','),
            raw,
            text: decodeQuotedPrintable(raw),
          });
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
      // TRUSTED_PROXIES: each client() sends an X-Forwarded-For of its own, so throttles see separate people.
      BASE_URL: url,
      TRUSTED_PROXIES: '127.0.0.1',
      PAYPAL_API_BASE: provider.url,
      PAYPAL_CLIENT_ID: 'cid',
      PAYPAL_CLIENT_SECRET: 'csecret',
      PAYPAL_WEBHOOK_ID: 'WH-TEST',
      PAYPAL_PLANS: 'developer=P-DEV,startup=P-START',
      PAYPAL_CERT_CA_FILE: provider.caFile,
      ...(smtp ? { SMTP_URL: `smtp://127.0.0.1:${smtpPort}` } : {}),
      ...opts.env,
    });
    const logs: string[] = [];
    const app = await createApp(loadConfig({ ...env.env, LOG_LEVEL: 'debug' }), {
      log: createLogger('debug', (l) => logs.push(l)),
    });
    await app.start(port, '127.0.0.1');
    const e = env;
    const mailTo = (to: string, match = /./): Promise<Received> =>
      smtp ? waitForMail(to, match) : heldMail(app, to, match);
    return {
      url,
      app,
      provider,
      mail,
      logs,
      mailTo,
      client: () => new Browserish(url, { inbox: mailTo, ip: randomClientIp() }),
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

/** A message held in the outbox (no SMTP_URL), as soon as it is written. */
export async function heldMail(app: App, to: string, match: RegExp): Promise<Received> {
  for (let waited = 0; waited < 30_000; waited += 50) {
    const rows = await app.db.prisma.mailOutbox.findMany({ where: { to }, orderBy: { id: 'asc' } });
    const m = rows.find((r) => match.test(r.text));
    if (m) return { to, raw: m.text, text: m.text };
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no message to ${to} matching ${match} in the outbox`);
}

/** An address per client from 198.18.0.0/15 (reserved for benchmarking: no real client has one). */
export const randomClientIp = () => `198.18.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;

/** A cookie-keeping HTTP client that behaves like a browser's form posts (no redirects followed). */
export class Browserish {
  cookies = new Map<string, string>();
  constructor(
    readonly base: string,
    readonly opts: { inbox?: Inbox; ip?: string } = {},
  ) {}
  async request(
    path: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = {
      ...(this.opts.ip ? { 'x-forwarded-for': this.opts.ip } : {}),
      ...init.headers,
    };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (init.form) {
      body = new URLSearchParams(init.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const res = await fetch(this.base + path, {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      headers,
      body,
      redirect: 'manual',
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq),
        value = pair!.slice(eq + 1);
      if (value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: res.status, headers: res.headers, text: await res.text() };
  }
  /** The CSRF token of the last page's forms. */
  static csrf(page: string): string {
    const m = /name="_csrf" value="([^"]+)"/.exec(page);
    if (!m) throw new Error(`no CSRF field in page: ${page.slice(0, 300)}`);
    return m[1]!;
  }
  /** Posts the registration form (the answer: "check your inbox"; no account or session yet). */
  async register(email: string, password = 'correct horse battery') {
    const form = await this.request('/workspace/register');
    return this.request('/workspace/register', { form: { _csrf: Browserish.csrf(form.text), email, password } });
  }
  async signIn(email: string, password = 'correct horse battery') {
    return this.request('/workspace/sign-in', {
      form: { _csrf: await this.csrfOf('/workspace/sign-in'), email, password },
    });
  }
  /** Opens an e-mailed confirmation link and confirms it with `password`: the answer to that POST (303 and a session when it worked). */
  async confirm(link: string, password = 'correct horse battery') {
    const url = new URL(link);
    const page = await this.request(url.pathname + url.search);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? this.cookies.get('rk_csrf') ?? ''; // the "does not work" page has no form
    return this.request('/workspace/confirm', {
      form: { _csrf: csrf, token: url.searchParams.get('token') ?? '', password },
    });
  }
  /** The whole way to a signed-in new account: register, then the link in the mail with the password. */
  async signUp(email: string, password = 'correct horse battery') {
    if (!this.opts.inbox) throw new Error('signUp needs a client made with an inbox (harness.client())');
    const registered = await this.register(email, password);
    if (registered.status !== 200)
      throw new Error(`registration answered ${registered.status}: ${registered.text.slice(0, 500)}`);
    const confirmed = await this.confirm(await confirmationLink(this.opts.inbox, email), password);
    if (confirmed.status !== 303)
      throw new Error(`confirmation answered ${confirmed.status}: ${confirmed.text.slice(0, 500)}`);
    return confirmed;
  }
  async csrfOf(path: string) {
    return Browserish.csrf((await this.request(path)).text);
  }
}

/** An account made earlier, without mail (none sent to it in the last minute); `confirmed: false` is one from before confirmation existed. */
export async function seedAccount(
  app: App,
  email: string,
  password = 'correct horse battery',
  opts: { confirmed?: boolean } = {},
) {
  const prisma = app.db.prisma;
  const token = await issueConfirmation(prisma, email, await hashPassword(password));
  const done = await confirmAddress({ prisma, counters: app.services.counters }, token, password, randomClientIp());
  if (done.outcome !== 'created') throw new Error(`seeding ${email}: ${done.outcome}`);
  if (opts.confirmed === false) await prisma.account.update({ where: { email }, data: { emailVerifiedAt: null } });
}

/** The confirmation link of the first confirmation message to `to`. */
export async function confirmationLink(inbox: Inbox, to: string): Promise<string> {
  const m = await inbox(to, /\/workspace\/confirm\?token=/);
  return /(https?:\/\/\S+\/workspace\/confirm\?token=[A-Za-z0-9_-]+)/.exec(m.text)![1]!;
}
