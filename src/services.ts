import type { PrismaClient } from './generated/prisma/client.ts';
import type { NetworkIndex } from './domain/network/index.ts';
import type { PublicationCache } from './domain/publishing/index.ts';
import type { CounterStore } from './counters/types.ts';
import type { ScoreDeps } from './domain/score/score-request.ts';
import type { Logger } from './log.ts';

/** The long-lived parts every resolver may use; built once by createApp. */
export type Services = ScoreDeps & {
  prisma: PrismaClient;
  network: NetworkIndex;
  publications: PublicationCache;
  counters: CounterStore;
  baseUrl: string;
  log: Logger;
};
