/**
 * Runs the test world (bench/evaluate, TEST_WORLD) end to end on the backend this test run uses: the embedded
 * default, or PostgreSQL + Redis when DATABASE_URL / REDIS_URL are set (a fresh database and key prefix of its own).
 */
import { loadNetworkData } from '../../src/domain/network/index.ts';
import { NetworkCatalogue } from '../../bench/evaluate/networks.ts';
import { parseParams, TEST_WORLD } from '../../bench/evaluate/params.ts';
import { buildWorld, type World } from '../../bench/evaluate/world.ts';
import { openService } from '../../bench/evaluate/service.ts';
import { runWorld, type RunResult } from '../../bench/evaluate/drive.ts';
import { measure, type Measures } from '../../bench/evaluate/measure.ts';
import { usingPostgres } from './backend.ts';

export async function runTestWorld(seed = 1): Promise<{ world: World; run: RunResult; measures: Measures }> {
  const world = buildWorld(parseParams(['--seed', String(seed)], TEST_WORLD), NetworkCatalogue.load());
  const service = await openService(
    usingPostgres ? 'postgres' : 'embedded',
    world.workspaces.map((w) => w.name),
    {
      network: loadNetworkData(),
      ...(process.env.DATABASE_URL ? { adminUrl: process.env.DATABASE_URL } : {}),
      ...(process.env.REDIS_URL ? { redisUrl: process.env.REDIS_URL } : {}),
    },
  );
  try {
    const run = await runWorld(world, service);
    return { world, run, measures: measure(world, run) };
  } finally {
    await service.close();
  }
}
