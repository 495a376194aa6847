import type { PrismaClient } from '../generated/prisma/client.ts';
import type { NetworkIndex } from './network/index.ts';
import type { PublicationCache } from './publishing/index.ts';
import type { CounterStore } from '../platform/counters/types.ts';
import type { ScoreDeps } from './lookups/score-call.ts';
import type { Logger } from '../platform/log.ts';

/** The long-lived parts every resolver may use; built once by createApp. */
export type Services = ScoreDeps & {
  prisma: PrismaClient;
  network: NetworkIndex;
  publications: PublicationCache;
  counters: CounterStore;
  baseUrl: string;
  log: Logger;
};
