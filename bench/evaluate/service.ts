/**
 * The service under evaluation, in this process: the real app (database, counters, network index, publication
 * cache, services) on the embedded default or on PostgreSQL + Redis, with nothing scheduled (the world's clock
 * decides when to publish), and one API key per workspace of the world, as the viewer its calls would carry.
 */
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { Viewer } from '../../src/domain/access/verifier.ts';
import { createApiKey } from '../../src/domain/access/keys.ts';
import type { NetworkIndex } from '../../src/domain/network/index.ts';
import { embeddedBackend, postgresBackend, serviceEnv, type Backend } from '../backends.ts';

export type BackendName = 'embedded' | 'postgres';
export type EvaluatedService = { app: App; backend: Backend; viewers: Viewer[]; close(): Promise<void> };

/** `postgres`: a new database on the server `adminUrl` names (BENCH_PG_URL or the machine's loopback one), and a new
 *  key prefix on `redisUrl`; both removed by close(). */
export async function openService(
  backendName: BackendName,
  workspaces: readonly string[],
  opts: { network?: NetworkIndex | Promise<NetworkIndex>; adminUrl?: string; redisUrl?: string } = {},
): Promise<EvaluatedService> {
  const { network, adminUrl, redisUrl } = opts;
  const backend =
    backendName === 'postgres'
      ? await postgresBackend({
          label: 'evaluate',
          ...(adminUrl ? { adminUrl } : {}),
          ...(redisUrl ? { redisUrl } : {}),
        })
      : embeddedBackend();
  let app: App;
  try {
    const env = serviceEnv({ ...backend.env, LOG_LEVEL: 'error', WATCH_DETECTION_MS: '0' });
    app = await createApp(loadConfig(env), network ? { network } : {});
  } catch (e) {
    await backend.remove();
    throw e;
  }
  const viewers: Viewer[] = [];
  for (const name of workspaces) {
    const key = await createApiKey(app.db.prisma, app.pepper, { workspace: name, name: 'evaluate' });
    const row = await app.db.prisma.apiKey.findUniqueOrThrow({
      where: { prefix: key.prefix },
      include: { workspace: true },
    });
    viewers.push({
      workspaceId: row.workspaceId,
      workspaceName: row.workspace.name,
      tier: row.workspace.tier,
      apiKeyId: row.id,
      keyName: row.name,
      keyPrefix: row.prefix,
    });
  }
  return {
    app,
    backend,
    viewers,
    async close() {
      await app.close();
      await backend.remove();
    },
  };
}
