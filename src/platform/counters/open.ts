import path from 'node:path';
import type { Config } from '../../config.ts';
import type { Logger } from '../log.ts';
import type { CounterStore } from './types.ts';
import { createRedisCounterStore } from './redis.ts';
import { redisTargetOf } from './redis-connection.ts';
import { createEmbeddedCounterStore } from './embedded.ts';

/** Redis when REDIS_URL or REDIS_CLUSTER_NODES is set (shared by every process), else the embedded journal in DATA_DIR. */
export async function openCounterStore(config: Config, log: Logger): Promise<CounterStore> {
  const target = redisTargetOf(config);
  if (target) {
    return createRedisCounterStore(target, {
      prefix: config.redisKeyPrefix,
      onOutage: (err) => log.error('redis unreachable; score fails closed until it returns', { err: err }),
    });
  }
  return createEmbeddedCounterStore({ file: path.join(config.dataDir, 'counters.journal') });
}
