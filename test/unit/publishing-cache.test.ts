/**
 * The in-memory publication cache: empty before the first publication, swaps only on a new
 * version, a held snapshot never changes under its reader, and readers racing the publisher
 * only ever see complete publications.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { NetworkIndex } from '../../src/domain/network/index.ts';
import { publish } from '../../src/domain/publishing/publish.ts';
import { PublicationCache } from '../../src/domain/publishing/cache.ts';
import { publishedCounts } from '../../src/domain/scoring/evidence.ts';
import { reportedSummaryOf, type ReportedTuple } from '../../src/domain/publishing/image-format.ts';
import { backendName } from '../helpers/backend.ts';
import { openTestDatabase, seedReport, seedWorkspace, type TestDatabase } from '../helpers/publishing-fixtures.ts';
import { sharedNetwork } from '../helpers/network.ts';

const NOW = new Date('2026-03-01T00:00:00Z');

describe(`PublicationCache (${backendName})`, () => {
  let t: TestDatabase;
  let network: NetworkIndex;
  let ws: number;
  beforeAll(async () => {
    [t, network] = await Promise.all([openTestDatabase(), sharedNetwork()]);
    ws = await seedWorkspace(t.prisma, 'cache');
  });
  afterAll(() => t?.close());

  it('is an empty snapshot (version 0) before any publication, not an error', async () => {
    const cache = new PublicationCache(t.prisma);
    const snap = await cache.load();
    expect({ version: snap.version, size: snap.size, publishedAt: snap.publishedAt }).toEqual({
      version: 0,
      size: 0,
      publishedAt: null,
    });
    expect(snap.global('ip', '8.8.8.8')).toBeUndefined();
    expect(snap.contextual(ws)('ip', '8.8.8.8')).toBeUndefined();
    expect(await cache.refresh()).toBe(false);
  });

  it('swaps in a new publication only when the version changed; a held snapshot never changes', async () => {
    const cache = new PublicationCache(t.prisma);
    await seedReport(t.prisma, {
      workspaceId: ws,
      kind: 'ipaddress',
      key: '8.8.8.8',
      visibility: 'community',
      createdAt: NOW,
    });
    const v1 = await publish(t.prisma, network, { now: NOW });
    const held = await cache.load();
    expect(held.version).toBe(v1.version);
    expect(held.publishedAt?.toISOString()).toBe(v1.publishedAt.toISOString());
    expect(await cache.refresh(), 'same version: no reload').toBe(false);
    expect(cache.current()).toBe(held);

    await seedReport(t.prisma, {
      workspaceId: ws,
      kind: 'ipaddress',
      key: '8.8.8.8',
      visibility: 'community',
      createdAt: NOW,
    });
    const v2 = await publish(t.prisma, network, { now: NOW });
    expect(await cache.refresh()).toBe(true);
    expect(cache.current().version).toBe(v2.version);
    expect(cache.current().global('ip', '8.8.8.8')?.counts.reports).toBe(2);
    expect(held.global('ip', '8.8.8.8')?.counts.reports, 'the old snapshot still answers from its publication').toBe(1);
    expect(Object.isFrozen(held.global('ip', '8.8.8.8'))).toBe(true);
  });

  it.each([
    ['from its image', 'image', undefined],
    ['from its rows when it has no image, in one chunk', 'rows', undefined],
    [
      'from its rows when it has no image, two rows at a time (chunk boundaries inside every layer and code)',
      'rows',
      2,
    ],
  ] as const)('holds every stored row exactly as stored, %s', async (_, from, chunkRows) => {
    const latest = await t.prisma.publication.findFirstOrThrow({
      where: { status: 'complete' },
      orderBy: { version: 'desc' },
    });
    expect(latest.imageBytes, 'the publisher stores an image').toBeGreaterThan(0);
    // A publication written before images existed: no image recorded (its parts are left, unread).
    if (from === 'rows') await t.prisma.publication.update({ where: { id: latest.id }, data: { imageBytes: null } });
    const snap = await new PublicationCache(t.prisma, { chunkRows })
      .load()
      .finally(() =>
        t.prisma.publication.update({ where: { id: latest.id }, data: { imageBytes: latest.imageBytes } }),
      );
    // From its rows the image holds the same rows in primary-key order, not the publisher's: its header (row numbers of
    // names, order of levels) can differ by a few characters, so only the image read as stored has the stored size.
    if (from === 'image') expect(snap.imageBytes).toBe(latest.imageBytes);
    else expect(snap.imageBytes).toBeGreaterThan(0);
    const rows = await t.prisma.publishedSummary.findMany({ where: { publication: { version: snap.version } } });
    expect(rows.length).toBeGreaterThan(6);
    expect(snap.size).toBe(rows.length);
    for (const r of rows) {
      const lookup = r.workspaceId === 0 ? snap.global : snap.contextual(r.workspaceId);
      const held = lookup(r.code as never, r.key);
      expect(held && { ...held, counts: publishedCounts(held.counts) }, `${r.workspaceId}/${r.code}/${r.key}`).toEqual({
        name: r.name,
        score: r.score,
        level: r.level,
        counts: r.counts,
        reporters: r.reporters,
        firstSeen: r.firstSeen,
        lastSeen: r.lastSeen,
        reported: r.reported && reportedSummaryOf(r.reported as ReportedTuple),
      });
    }
  });

  it('loads the rows of a publication whose image it cannot read, and says so', async () => {
    const latest = await t.prisma.publication.findFirstOrThrow({
      where: { status: 'complete' },
      orderBy: { version: 'desc' },
    });
    const expected = await new PublicationCache(t.prisma).load();
    const first = await t.prisma.publicationImagePart.findUniqueOrThrow({
      where: { publicationId_part: { publicationId: latest.id, part: 0 } },
    });
    const damaged = Uint8Array.from(first.bytes);
    damaged[0] = damaged[0]! ^ 0xff; // its magic number
    await t.prisma.publicationImagePart.update({
      where: { publicationId_part: { publicationId: latest.id, part: 0 } },
      data: { bytes: damaged },
    });
    const errors: unknown[] = [];
    try {
      const snap = await new PublicationCache(t.prisma, { onError: (e) => errors.push(e) }).load();
      expect(snap.version).toBe(latest.version);
      expect(String(errors[0])).toMatch(/image is unreadable .*bad magic.*loading its rows instead/);
      const rows = await t.prisma.publishedSummary.findMany({ where: { publicationId: latest.id } });
      for (const r of rows) {
        const lookup = (s: typeof snap) =>
          (r.workspaceId === 0 ? s.global : s.contextual(r.workspaceId))(r.code as never, r.key);
        expect(lookup(snap)).toEqual(lookup(expected));
      }
    } finally {
      await t.prisma.publicationImagePart.update({
        where: { publicationId_part: { publicationId: latest.id, part: 0 } },
        data: { bytes: first.bytes },
      });
    }
  });

  it('start() polls in the background and stop() ends it', async () => {
    const cache = new PublicationCache(t.prisma);
    await cache.load();
    const before = cache.current().version;
    cache.start(50);
    try {
      const r = await publish(t.prisma, network, { now: NOW });
      await vi.waitFor(() => expect(cache.current().version).toBe(r.version), { timeout: 10_000, interval: 20 });
      expect(r.version).toBeGreaterThan(before);
    } finally {
      cache.stop();
    }
  });

  it('readers racing several publications only ever see complete ones', async () => {
    const cache = new PublicationCache(t.prisma);
    const seen: Array<{ version: number; size: number }> = [];
    const counts = new Map<number, number>([[0, 0]]);
    let publishing = true;
    const reader = (async () => {
      while (publishing) {
        await cache.refresh();
        const s = cache.current();
        seen.push({ version: s.version, size: s.size });
        // a raw reader too: whatever the highest complete version is, its rows are all there
        const rows = await t.prisma.$queryRaw<Array<{ version: number; entityCount: number; n: number }>>`
          SELECT p."version", p."entityCount", (SELECT count(*)::int FROM "PublishedSummary" s WHERE s."publicationId" = p."id") AS n
            FROM "Publication" p WHERE p."status" = 'complete' ORDER BY p."version" DESC LIMIT 1`;
        if (rows[0]) expect(rows[0].n, `version ${rows[0].version} rows`).toBe(rows[0].entityCount);
      }
    })();
    for (let i = 0; i < 4; i++) {
      // each round adds IPs so publications differ in size
      for (let k = 0; k < 25; k++) {
        await seedReport(t.prisma, {
          workspaceId: ws,
          kind: 'ipaddress',
          key: `8.${i + 10}.${k}.1`,
          visibility: 'community',
          createdAt: NOW,
        });
      }
      const r = await publish(t.prisma, network, { now: NOW, keep: 1, batchSize: 7 });
      counts.set(r.version, r.entities.global + r.entities.contextual);
    }
    publishing = false;
    await reader;
    expect(seen.length).toBeGreaterThan(0);
    const known = await t.prisma.publication.findMany({ select: { version: true, entityCount: true } });
    for (const p of known) counts.set(p.version, p.entityCount);
    for (const s of seen) {
      if (!counts.has(s.version)) continue; // a version pruned before this test recorded it (from earlier tests)
      expect(s.size, `snapshot of version ${s.version}`).toBe(counts.get(s.version));
    }
    expect(new Set(seen.map((s) => s.version)).size, 'the reader saw the versions change').toBeGreaterThan(1);
  });
});
