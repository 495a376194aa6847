import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BlockList } from 'node:net';
import type { Config } from '../../config.ts';
import type { Services } from '../../domain/services.ts';
import type { Logger } from '../../platform/log.ts';
import type { KeyVerifier } from '../../domain/access/verifier.ts';
import type { Session } from '../../domain/accounts/sessions.ts';
import type { BillingDeps } from '../../domain/billing/subscriptions.ts';
import type { Mailer } from '../../domain/mail/outbox.ts';

/** Everything the control plane needs, built once by createApp. */
export type WebDeps = {
  services: Services; config: Config; verifier: KeyVerifier; pepper: string;
  billing: BillingDeps; mailer: Mailer; log: Logger; proxies: BlockList | null;
  /** Revoked keys and tier changes: tell every process (Redis pub/sub) — the local cache is dropped by the caller. */
  announce?: ((message: string) => Promise<void>) | undefined;
};

/** One control-plane request. */
export type WebRequest = {
  req: IncomingMessage; res: ServerResponse; method: string; path: string; requestId: string; query: URLSearchParams;
  ip: string; session: Session | null;
};

export type SignedIn = WebRequest & { session: Session };

export const SESSION_COOKIE = 'rk_session';
export const PRE_CSRF_COOKIE = 'rk_csrf';
export const secureCookies = (c: Config) => c.baseUrl.startsWith('https://');
