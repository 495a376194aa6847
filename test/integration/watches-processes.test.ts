/**
 * Watch detection across server processes sharing PostgreSQL (docs/decisions/0023-watch-detection-in-chunks.md): both
 * run detection every 100 ms while one publishes every second, and each change still gives exactly one event. The
 * test waits for the state to move (polling the database), then counts events; it never asserts how fast.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { freshEnvironment, usingPostgres, type TestEnv } from '../helpers/backend.ts';
import { ServerProcesses, pooledClient, seedTierAndKey } from '../reliability/support.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { WEBHOOK_EVENT_TYPES } from '../../src/domain/webhooks/event-types.ts';

describe.runIf(usingPostgres)('watch detection across two server processes (postgresql+redis)', () => {
  const servers = new ServerProcesses();
  const client = pooledClient();
  let env: TestEnv;
  let db: Awaited<ReturnType<typeof openDatabase>> | undefined;
  afterAll(async () => {
    client.close();
    await servers.stopAll();
    await db?.close();
    await env?.cleanup();
  });

  /** Reads `read` until `done` holds (or 60 s pass: then the last value fails the caller's expectation). */
  async function until<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
    let last = await read();
    for (const end = Date.now() + 60_000; !done(last) && Date.now() < end; ) {
      await new Promise((r) => setTimeout(r, 100));
      last = await read();
    }
    return last;
  }

  it("writes each change's event once while two processes detect at the same time", async () => {
    env = await freshEnvironment();
    const a = {
      'x-api-key': (await seedTierAndKey(env, { code: 'watch-a', dailyLimit: 1_000_000 }, 'watch-processes-a')).secret,
    };
    const b = {
      'x-api-key': (await seedTierAndKey(env, { code: 'watch-b', dailyLimit: 1_000_000 }, 'watch-processes-b')).secret,
    };
    db = await openDatabase({ databaseUrl: env.env.DATABASE_URL, dataDir: env.dataDir });
    const prisma = db.prisma;
    const wsA = (await prisma.workspace.findUniqueOrThrow({ where: { name: 'watch-processes-a' } })).id;
    await prisma.webhookEndpoint.create({
      data: {
        workspaceId: wsA,
        url: 'https://hooks.example.com/a',
        eventTypes: [...WEBHOOK_EVENT_TYPES],
        secret: 'whsec_test',
      },
    });
    const common = { ...env.env, WATCH_DETECTION_MS: '100', PUBLICATION_REFRESH_MS: '100' };
    const [one, two] = await Promise.all([
      servers.start({ ...common, PUBLISH_INTERVAL_MS: '1000' }),
      servers.start({ ...common, PUBLISH_INTERVAL_MS: '0' }),
    ]);

    const made = await client.post(one, '/risk_api/watches/', { target: '9.9.9.9', score_threshold: 1 }, a);
    expect(made.status, made.text).toBe(201);
    const id = made.body.watch.id as number;
    const watch = () => prisma.watch.findUniqueOrThrow({ where: { id } });
    const first = await until(watch, (w) => w.lastPublicationVersion !== null);
    expect(first.lastScore).toBe(0);

    for (let i = 0; i < 3; i++) {
      const r = await client.post(
        two,
        '/risk_api/report/',
        {
          kind: 'ipaddress',
          key: '9.9.9.9',
          outcome_code: 'fraud_confirmed',
          severity: 'critical',
          visibility: 'community',
        },
        b,
      );
      expect(r.status, r.text).toBe(201);
    }
    const moved = await until(watch, (w) => (w.lastScore ?? 0) > 0);
    expect(moved.lastScore).toBeGreaterThan(0);
    // Several more publications and detection rounds of both processes pass over the changed state.
    await until(watch, (w) => (w.lastPublicationVersion ?? 0) >= moved.lastPublicationVersion! + 3);
    const reported = await until(
      () => prisma.webhookEvent.count({ where: { workspaceId: wsA, type: 'watch.reported' } }),
      (n) => n >= 3,
    );

    const events = await prisma.webhookEvent.findMany({ where: { workspaceId: wsA } });
    const of = (type: string) => events.filter((e) => e.type === type);
    expect(of('watch.score_crossed')).toHaveLength(1);
    // The reports may land across publications, so the level may step more than once: one event per step, a chain.
    const steps = of('watch.level_changed')
      .map((e) => e.data as any)
      .sort((x, y) => x.after.publication_version - y.after.publication_version);
    const finalLevel = (await watch()).lastLevel;
    expect(steps.length).toBeGreaterThanOrEqual(finalLevel === 'minimal' ? 0 : 1);
    expect(new Set(steps.map((e) => e.after.publication_version)).size).toBe(steps.length);
    for (const [i, e] of steps.entries()) expect(e.before.level).toBe(i === 0 ? 'minimal' : steps[i - 1].after.level);
    if (steps.length > 0) expect(steps.at(-1).after.level).toBe(finalLevel);
    expect(reported).toBe(3); // one per report, whichever process followed it
    expect(await prisma.webhookDelivery.count({ where: { workspaceId: wsA } })).toBe(events.length);
  });
});
