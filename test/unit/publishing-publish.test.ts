/**
 * The publisher over a real database and the real network data: which evidence reaches the
 * global layer, which stays in its workspace's contextual layer, how feeds land on subnets,
 * version numbering, pruning, and that readers only ever see complete publications.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NetworkIndex } from '../../src/domain/network/index.ts';
import { importFeed } from '../../src/domain/feeds/store.ts';
import { parseFeedText } from '../../src/domain/feeds/parse.ts';
import { publish, type PublishResult } from '../../src/domain/publishing/publish.ts';
import { PublicationCache, type Snapshot } from '../../src/domain/publishing/cache.ts';
import { backendName } from '../helpers/backend.ts';
import {
  openTestDatabase,
  seedRating,
  seedReport,
  seedWorkspace,
  type TestDatabase,
} from '../helpers/publishing-fixtures.ts';
import { sharedNetwork } from '../helpers/network.ts';

const NOW = new Date('2026-03-01T00:00:00Z');
const HOUR_AGO = new Date(NOW.getTime() - 3600_000);

describe(`publish (${backendName})`, () => {
  let t: TestDatabase;
  let network: NetworkIndex;
  let wsA: number;
  let wsB: number;
  let wsC: number;
  let first: PublishResult;
  let snap: Snapshot;

  beforeAll(async () => {
    [t, network] = await Promise.all([openTestDatabase(), sharedNetwork()]);
    wsA = await seedWorkspace(t.prisma, 'a');
    wsB = await seedWorkspace(t.prisma, 'b');
    wsC = await seedWorkspace(t.prisma, 'c');
    const p = t.prisma;
    await seedReport(p, {
      workspaceId: wsA,
      kind: 'ipaddress',
      key: '8.8.8.8',
      visibility: 'community',
      severity: 'critical',
      createdAt: HOUR_AGO,
    });
    await seedReport(p, {
      workspaceId: wsA,
      kind: 'ipaddress',
      key: '1.1.1.1',
      visibility: 'workspace',
      createdAt: HOUR_AGO,
    });
    await seedRating(p, wsB, '9.9.9.9', -1, HOUR_AGO);
    // A community report about a domain with a related IP: the IP counts, the domain maps nowhere.
    await seedReport(p, {
      workspaceId: wsB,
      kind: 'domain',
      key: 'evil.example',
      visibility: 'community',
      createdAt: HOUR_AGO,
      related: [
        { kind: 'ipaddress', key: '5.6.7.8', role: 'source_ip' },
        { kind: 'email', key: 'x@evil.example', role: 'email' },
      ],
    });
    await seedReport(p, { workspaceId: wsB, kind: 'asn', key: '13335', visibility: 'community', createdAt: HOUR_AGO });
    await seedReport(p, {
      workspaceId: wsB,
      kind: 'organization',
      key: '  Cloudflare,   Inc. ',
      visibility: 'community',
      createdAt: HOUR_AGO,
    });
    await seedReport(p, {
      workspaceId: wsC,
      kind: 'cidr',
      key: '9.9.9.0/24',
      visibility: 'workspace',
      createdAt: HOUR_AGO,
    });
    await importFeed(p, {
      name: 'drop',
      format: 'plain',
      weight: 1,
      source: 't',
      parsed: parseFeedText('8.8.4.0/24\n8.8.5.0/28\n4.4.4.4\n', 'plain'),
    });
    first = await publish(p, network, { now: NOW });
    const cache = new PublicationCache(p);
    snap = await cache.load();
  });
  afterAll(() => t?.close());

  it('publishes version 1 and the cache loads exactly its rows', async () => {
    expect(first.version).toBe(1);
    expect(snap.version).toBe(1);
    expect(snap.size).toBe(first.entities.global + first.entities.contextual);
    const pub = await t.prisma.publication.findUnique({ where: { version: 1 } });
    expect(pub).toMatchObject({ status: 'complete', entityCount: snap.size });
    expect(first.stats).toMatchObject({ workspaces: 3, reports: 6, ratings: 1, feeds: 1, feedEntries: 3 });
  });

  it('a community report raises the global IP and, less, its subnet and AS', () => {
    const ip = snap.global('ip', '8.8.8.8');
    const subnet = snap.global('subnet', '8.8.8.0/24');
    const asn = snap.global('asn', 'AS15169');
    expect(ip, 'ip 8.8.8.8').toMatchObject({ counts: { reports: 1 }, reporters: 1, name: '8.8.8.8' });
    expect(subnet, 'its /24').toMatchObject({ counts: { reports: 1 } });
    expect(asn, 'its AS').toMatchObject({ counts: { reports: 1 }, name: 'AS15169' });
    expect(ip!.score).toBeGreaterThan(40);
    expect(subnet!.score).toBeGreaterThan(0);
    expect(subnet!.score).toBeLessThan(ip!.score);
    expect(asn!.score).toBeLessThanOrEqual(subnet!.score);
    expect(ip!.firstSeen?.toISOString()).toBe(HOUR_AGO.toISOString());
  });

  it('a workspace-visibility report stays out of the global layer and out of other workspaces', () => {
    expect(snap.global('ip', '1.1.1.1'), 'global').toBeUndefined();
    expect(snap.global('subnet', '1.1.1.0/24'), 'global subnet').toBeUndefined();
    expect(snap.contextual(wsA)('ip', '1.1.1.1'), 'own workspace').toMatchObject({ counts: { reports: 1 } });
    expect(snap.contextual(wsA)('subnet', '1.1.1.0/24'), 'own workspace subnet').toBeDefined();
    expect(snap.contextual(wsB)('ip', '1.1.1.1'), 'workspace b').toBeUndefined();
    expect(snap.contextual(wsC)('ip', '1.1.1.1'), 'workspace c').toBeUndefined();
    // a community report is in its author's own layer too
    expect(snap.contextual(wsA)('ip', '8.8.8.8')).toMatchObject({ counts: { reports: 1 } });
    expect(snap.contextual(wsB)('ip', '8.8.8.8')).toBeUndefined();
  });

  it("a bad rating appears only in the rater's contextual layer", () => {
    expect(snap.global('ip', '9.9.9.9')).toBeUndefined();
    expect(snap.contextual(wsB)('ip', '9.9.9.9')).toMatchObject({ score: 20, counts: { badRatings: 1 }, reporters: 1 });
    expect(snap.contextual(wsA)('ip', '9.9.9.9')).toBeUndefined();
  });

  it('related subjects count; domain and email subjects map to no dimension', () => {
    expect(snap.global('ip', '5.6.7.8')).toMatchObject({ counts: { reports: 1 } });
    expect(snap.global('domain' as never, 'evil.example')).toBeUndefined();
  });

  it('asn and organization subjects land on their entities, organisation keys normalised', () => {
    expect(snap.global('asn', 'AS13335')).toMatchObject({ counts: { reports: 1 } });
    expect(snap.global('org', 'cloudflare, inc.')).toMatchObject({ counts: { reports: 1 } });
    // One workspace's report about an AS: it counts, and one workspace alone keeps a network low (decision 0039).
    expect(snap.global('asn', 'AS13335')!.score).toBeGreaterThan(10);
    expect(snap.global('asn', 'AS13335')!.score).toBeLessThanOrEqual(26);
  });

  it('feed CIDRs raise the subnets they cover, scaled by the share covered; a /32 is an IP', () => {
    const whole = snap.global('subnet', '8.8.4.0/24');
    const part = snap.global('subnet', '8.8.5.0/24');
    expect(whole).toMatchObject({ score: 41, counts: { feedListings: 1, reports: 0 }, reporters: 0 });
    expect(part, 'a /28 inside a /24').toMatchObject({ counts: { feedListings: 1 } });
    expect(part!.score).toBeLessThan(whole!.score);
    expect(part!.score).toBeGreaterThan(0);
    expect(snap.global('ip', '4.4.4.4')).toMatchObject({ score: 41, counts: { feedListings: 1 } });
    expect(snap.global('ip', '8.8.4.4'), 'addresses of a listed subnet get no IP row of their own').toBeUndefined();
  });

  it('a cidr subject in a workspace report lands on the subnet in that workspace only', () => {
    expect(snap.contextual(wsC)('subnet', '9.9.9.0/24')).toMatchObject({ counts: { reports: 1 } });
    expect(snap.global('subnet', '9.9.9.0/24')).toBeUndefined();
  });

  it('later publications get higher versions and older ones are pruned to keep', async () => {
    const versions: number[] = [];
    for (let i = 0; i < 3; i++) versions.push((await publish(t.prisma, network, { now: NOW, keep: 2 })).version);
    expect(versions).toEqual([2, 3, 4]);
    const left = await t.prisma.publication.findMany({
      orderBy: { version: 'asc' },
      select: { version: true, status: true },
    });
    expect(left).toEqual([
      { version: 3, status: 'complete' },
      { version: 4, status: 'complete' },
    ]);
    const orphanRows = await t.prisma.publishedSummary.count({ where: { publication: { version: { lt: 3 } } } });
    expect(orphanRows).toBe(0);
    const total = await t.prisma.publishedSummary.count();
    expect(total).toBe(2 * snap.size);
  });

  it('prunes a crashed publisher\'s "building" leftovers once they are an hour old', async () => {
    const stale = await t.prisma.publication.create({
      data: { version: 1000, status: 'building', startedAt: new Date(Date.now() - 2 * 3600_000) },
    });
    const fresh = await t.prisma.publication.create({
      data: { version: 1001, status: 'building', startedAt: new Date() },
    });
    const r = await publish(t.prisma, network, { now: NOW, keep: 2 });
    expect(r.version, 'numbering continues past the leftovers').toBe(1002);
    const ids = (await t.prisma.publication.findMany({ select: { id: true } })).map((p) => p.id);
    expect(ids).not.toContain(stale.id);
    expect(ids, 'a build younger than an hour may still be running').toContain(fresh.id);
    await t.prisma.publication.delete({ where: { id: fresh.id } });
  });
});
