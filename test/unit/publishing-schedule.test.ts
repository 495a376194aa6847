/**
 * Running the publisher safely from many places: a racing publisher gets a clear conflict, the
 * advisory lock lets one run at a time, and the scheduled tick logs instead of throwing.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { NetworkIndex } from '../../src/domain/network/index.ts';
import type { PrismaClient } from '../../src/generated/prisma/client.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { publish, type PublishResult } from '../../src/domain/publishing/publish.ts';
import { claimVersion, isPublishConflict } from '../../src/domain/publishing/publication-store.ts';
import { withPublishLock } from '../../src/domain/publishing/lock.ts';
import { publishTick, startPublishSchedule } from '../../src/domain/publishing/schedule.ts';
import { backendName, usingPostgres } from '../helpers/backend.ts';
import { openTestDatabase, seedReport, seedWorkspace, type TestDatabase } from '../helpers/publishing-fixtures.ts';
import { sharedNetwork } from '../helpers/network.ts';

const NOW = new Date('2026-03-01T00:00:00Z');

function recordingLog() {
  const lines: Array<[string, string, Record<string, unknown> | undefined]> = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => {
    lines.push([level, msg, fields]);
  };
  return { lines, log: { info: at('info'), warn: at('warn'), error: at('error') } };
}

describe(`publishing concurrency and schedule (${backendName})`, () => {
  let t: TestDatabase;
  let network: NetworkIndex;
  beforeAll(async () => {
    [t, network] = await Promise.all([openTestDatabase(), sharedNetwork()]);
    const ws = await seedWorkspace(t.prisma, 'sched');
    await seedReport(t.prisma, {
      workspaceId: ws,
      kind: 'ipaddress',
      key: '8.8.8.8',
      visibility: 'community',
      createdAt: NOW,
    });
  });
  afterAll(() => t?.close());

  it('a publisher that lost the race for a version number gets "another publication is in progress"', async () => {
    await publish(t.prisma, network, { now: NOW });
    // A client whose "what is the latest version?" answer is stale, as a racing process's would be.
    const stale = t.prisma.$extends({ query: { publication: { aggregate: async () => ({ _max: { version: 0 } }) } } });
    const err = await claimVersion(stale as unknown as PrismaClient, new Date()).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isPublishConflict(err), String(err)).toBe(true);
    expect((err as Error).message).toContain('another publication is in progress');
    expect(await t.prisma.publication.count({ where: { status: 'building' } }), 'nothing left behind').toBe(0);
  });

  it('two publishes at once leave only whole, distinct publications', async () => {
    const outcomes = await Promise.allSettled([
      publish(t.prisma, network, { now: NOW }),
      publish(t.prisma, network, { now: NOW }),
    ]);
    const ok = outcomes
      .filter((o): o is PromiseFulfilledResult<PublishResult> => o.status === 'fulfilled')
      .map((o) => o.value);
    const failed = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    for (const f of failed) expect(isPublishConflict(f.reason), String(f.reason)).toBe(true);
    expect(ok.length).toBeGreaterThan(0);
    expect(new Set(ok.map((r) => r.version)).size).toBe(ok.length);
    const pubs = await t.prisma.publication.findMany({ select: { id: true, status: true, entityCount: true } });
    for (const p of pubs) {
      expect(p.status).toBe('complete');
      expect(await t.prisma.publishedSummary.count({ where: { publicationId: p.id } })).toBe(p.entityCount);
    }
  });

  it('withPublishLock lets one run at a time in a process', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let holding!: () => void;
    const held = new Promise<void>((r) => {
      holding = r;
    });
    const first = withPublishLock(t.prisma, async () => {
      holding();
      await gate;
      return 'first';
    });
    await held;
    expect(await withPublishLock(t.prisma, async () => 'second')).toEqual({ acquired: false });
    release();
    expect(await first).toEqual({ acquired: true, value: 'first' });
    expect(await withPublishLock(t.prisma, async () => 'third')).toEqual({ acquired: true, value: 'third' });
  });

  it.runIf(usingPostgres)('withPublishLock excludes another process (a second client) on PostgreSQL', async () => {
    const other = await openDatabase({
      databaseUrl: t.databaseUrl!,
      dataDir: mkdtempSync(path.join(tmpdir(), 'risk-api-other-')),
    });
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    try {
      let holding!: () => void;
      const held = new Promise<void>((r) => {
        holding = r;
      });
      const first = withPublishLock(t.prisma, async () => {
        holding();
        await gate;
        return 1;
      });
      await held;
      expect(await withPublishLock(other.prisma, async () => 2)).toEqual({ acquired: false });
      release();
      expect(await first).toEqual({ acquired: true, value: 1 });
      expect(await withPublishLock(other.prisma, async () => 3)).toEqual({ acquired: true, value: 3 });
    } finally {
      release();
      await other.close();
    }
  });

  it('a tick publishes and logs; a tick that fails logs and returns null, leaving no half publication', async () => {
    const { lines, log } = recordingLog();
    const published: number[] = [];
    const r = await publishTick({
      prisma: t.prisma,
      network,
      log,
      onPublished: (p) => {
        published.push(p.version);
      },
    });
    expect(r?.version).toBeGreaterThan(0);
    expect(published).toEqual([r!.version]);
    expect(lines[0]).toEqual(['info', 'published', expect.objectContaining({ version: r!.version })]);

    const broken: NetworkIndex = {
      resolve: () => {
        throw new Error('network data unavailable');
      },
      stats: () => network.stats(),
    };
    const failing = recordingLog();
    expect(await publishTick({ prisma: t.prisma, network: broken, log: failing.log })).toBeNull();
    expect(failing.lines).toEqual([
      [
        'error',
        'publish failed',
        expect.objectContaining({ err: expect.objectContaining({ message: 'network data unavailable' }) }),
      ],
    ]);
    expect(await t.prisma.publication.count({ where: { status: 'building' } })).toBe(0);
  });

  it('the schedule runs a tick every interval and stops', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const { log } = recordingLog();
      const published: number[] = [];
      const stop = startPublishSchedule({
        prisma: t.prisma,
        network,
        intervalMs: 60_000,
        keep: 2,
        log,
        onPublished: (p) => {
          published.push(p.version);
        },
      });
      expect(published, 'nothing at start').toEqual([]);
      vi.advanceTimersByTime(60_000);
      await vi.waitFor(() => expect(published.length).toBe(1), { timeout: 20_000, interval: 20 });
      stop();
      vi.advanceTimersByTime(5 * 60_000);
      await new Promise((r) => setImmediate(r));
      expect(published.length, 'no tick after stop').toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
