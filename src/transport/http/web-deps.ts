import type { BlockList } from 'node:net';
import type { Config } from '../../config.ts';
import type { Services } from '../../domain/services.ts';
import type { Logger } from '../../platform/log.ts';
import type { KeyVerifier } from '../../domain/access/verifier.ts';
import type { BillingDeps } from '../../domain/billing/subscriptions.ts';
import type { Mailer } from '../../domain/mail/outbox.ts';

/*
 * The control plane's dependencies, here beside the request context rather than in web/: the one GraphQL builder's
 * context (graphql/context.ts) carries them for /workspace/graphql, and graphql/ must not import web/.
 */
/** Everything the control plane needs, built once by createApp. */
export type WebDeps = {
  services: Services;
  config: Config;
  verifier: KeyVerifier;
  pepper: string;
  billing: BillingDeps;
  mailer: Mailer;
  log: Logger;
  proxies: BlockList | null;
  /** Revoked keys and tier changes: tell every process (Redis pub/sub) — the local cache is dropped by the caller. */
  announce?: ((message: string) => Promise<void>) | undefined;
};
