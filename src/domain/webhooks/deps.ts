import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Logger } from '../../platform/log.ts';
import type { MailMessage } from '../mail/outbox.ts';

/** What the webhook functions need, built once by createApp (the delivery loop holds it: deliverer.ts). */
export type WebhookDeps = {
  prisma: PrismaClient;
  /** The operator's WEBHOOK_ALLOWED_HOSTS: exempt from the address guard, and allowed over http. */
  allowedHosts: readonly string[];
  log: Logger;
  /** The service's public address, named in the User-Agent and in the e-mail about a disabled endpoint. */
  baseUrl: string;
  /** Queues an e-mail (the Mailer's outbox). */
  mail: (message: MailMessage) => Promise<unknown>;
  /** The clock: injectable so a test can pass 3 days without waiting for them. */
  now: () => Date;
  /** Asks the delivery loop for a round soon (after a commit that wrote deliveries). */
  wake: () => void;
};

export type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];
