/**
 * Watch detection (docs/watches.md, docs/decisions/0023-watch-detection-in-chunks.md): each event kind is written
 * exactly once per change, in the transaction that records the watch's new state, never on the first observation;
 * watch.reported carries only what another workspace's community-visible report may show; on both backends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { eventually } from '../helpers/eventually.ts';
import { backendName, usingPostgres } from '../helpers/backend.ts';
import { publish } from '../../src/domain/publishing/index.ts';
import { detectOnce } from '../../src/domain/watches/detection.ts';
import { followReports } from '../../src/domain/watches/report-follower.ts';
import { windowStart, WINDOW_MS } from '../../src/platform/counters/keys.ts';
import { WEBHOOK_EVENT_TYPES } from '../../src/domain/webhooks/event-types.ts';

type Event = { type: string; data: any };

describe(`watch detection (${backendName})`, () => {
  let s: TestServer;
  let a: Record<string, string>;
  let b: Record<string, string>;
  let wsA: number;
  let wsB: number;
  const ids: Record<string, number> = {};

  const workspaceOf = async (prefix: string) =>
    (await s.app.db.prisma.apiKey.findFirstOrThrow({ where: { prefix } })).workspaceId;
  const detect = (nowMs = Date.now()) =>
    detectOnce(
      {
        prisma: s.app.db.prisma,
        network: s.app.services.network,
        publications: s.app.services.publications,
        community: s.app.services.community,
      },
      nowMs,
      (step, e) => {
        throw new Error(`${step}: ${String(e)}`);
      },
    );
  const events = async (workspaceId: number, type?: string): Promise<Event[]> =>
    (await s.app.db.prisma.webhookEvent.findMany({
      where: { workspaceId, ...(type ? { type } : {}) },
      orderBy: { id: 'asc' },
    })) as Event[];
  const newPublication = async () => {
    await publish(s.app.db.prisma, s.app.services.network);
    await s.app.services.publications.refresh();
    return s.app.services.publications.current().version;
  };
  const report = async (headers: Record<string, string>, body: object) => {
    const r = await s.post(
      '/risk_api/report/',
      { kind: 'ipaddress', key: '9.9.9.9', outcome_code: 'fraud_confirmed', severity: 'critical', ...body },
      headers,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  };
  const watch = async (body: object, headers = a) => {
    const r = await s.post('/risk_api/watches/', body, headers);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.watch.id as number;
  };

  beforeAll(async () => {
    s = await startTestServer();
    const keyA = await s.createKey('watch-detect-a', { tier: 'enterprise' });
    const keyB = await s.createKey('watch-detect-b', { tier: 'enterprise' });
    a = { 'x-api-key': keyA.secret };
    b = { 'x-api-key': keyB.secret };
    wsA = await workspaceOf(keyA.prefix);
    wsB = await workspaceOf(keyB.prefix);
    for (const workspaceId of [wsA, wsB]) {
      await s.app.db.prisma.webhookEndpoint.create({
        data: {
          workspaceId,
          url: 'https://hooks.example.com/risk',
          eventTypes: [...WEBHOOK_EVENT_TYPES],
          secret: 'whsec_test',
        },
      });
    }
    ids.ip = await watch({ target: '9.9.9.9', score_threshold: 1, note: 'resolver' });
    ids.asn = await watch({ target: 'AS19281', score_threshold: 1 });
    ids.cidr = await watch({ target: '9.9.9.0/24', score_threshold: 1 });
    ids.domain = await watch({ subject: { kind: 'domain', key: 'Evil.Example' } });
    ids.bIp = await watch({ target: '9.9.9.9' }, b); // B's own reports are never news to B
  });
  afterAll(async () => {
    await s?.close();
  });

  it('the first publication only records state; a publication that moves the score fires score_crossed and level_changed once', async () => {
    const v1 = await newPublication();
    await detect();
    expect(await events(wsA)).toEqual([]);
    const first = await s.app.db.prisma.watch.findUniqueOrThrow({ where: { id: ids.ip! } });
    expect(first).toMatchObject({ lastScore: 0, lastLevel: 'minimal', lastPublicationVersion: v1 });

    for (let i = 0; i < 3; i++)
      await report(b, { visibility: 'community', title: `secret title ${i}`, summary: 'private words' });
    const v2 = await newPublication();
    await Promise.all([detect(), detect()]); // two rounds at once share the work: each watch is taken once
    await detect(); // and a later round on the same publication finds nothing left
    const after = await s.app.db.prisma.watch.findUniqueOrThrow({ where: { id: ids.ip! } });
    expect(after.lastPublicationVersion).toBe(v2);
    expect(after.lastScore).toBeGreaterThan(0);

    const crossed = await events(wsA, 'watch.score_crossed');
    expect(crossed.map((e) => e.data.watch.id).sort()).toEqual([ids.ip, ids.asn, ids.cidr].sort());
    const ipCrossed = crossed.find((e) => e.data.watch.id === ids.ip)!;
    expect(ipCrossed.data).toMatchObject({
      watch: { id: ids.ip, target_kind: 'ip', target: '9.9.9.9', score_threshold: 1, note: 'resolver' },
      before: { score: 0, level: 'minimal', publication_version: v1 },
      after: { score: after.lastScore, level: after.lastLevel, publication_version: v2 },
      publication: { version: v2 },
      threshold: 1,
      direction: 'up',
    });
    const levels = await events(wsA, 'watch.level_changed');
    const moved = (
      await s.app.db.prisma.watch.findMany({ where: { workspaceId: wsA, targetKind: { not: 'subject' } } })
    ).filter((w) => w.lastLevel !== 'minimal');
    expect(levels.map((e) => e.data.watch.id).sort()).toEqual(moved.map((w) => w.id).sort());
    expect(moved.map((w) => w.id)).toContain(ids.ip);

    // Nothing moved: a new publication gives no event. (The reports above may be told as watch.reported by any later
    // round: on PostgreSQL the follower waits for older transactions of the whole server, other test files' too.)
    const fromPublications = async () => (await events(wsA)).filter((e) => e.type !== 'watch.reported').length;
    const count = await fromPublications();
    await newPublication();
    await detect();
    expect(await fromPublications()).toBe(count);
    // Every event has its outbox row for the endpoint, written with it.
    expect(await s.app.db.prisma.webhookDelivery.count({ where: { workspaceId: wsA } })).toBe(
      (await events(wsA)).length,
    );
  });

  it('a threshold crossed downwards fires once with direction down', async () => {
    const current = (await s.app.db.prisma.watch.findUniqueOrThrow({ where: { id: ids.ip! } })).lastScore!;
    const r = await s.post('/risk_api/watches/update/', { id: ids.ip, score_threshold: Math.min(100, current + 1) }, a);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    // The state is kept: the next publication compares the same score with the new threshold, and nothing crossed.
    const before = (await events(wsA, 'watch.score_crossed')).length;
    await newPublication();
    await detect();
    expect((await events(wsA, 'watch.score_crossed')).length).toBe(before);
    // Forcing the recorded state above the threshold stands in for a publication that scored it higher: the next one crosses down.
    await s.app.db.prisma.watch.update({ where: { id: ids.ip! }, data: { lastScore: 100, lastLevel: 'critical' } });
    await newPublication();
    await detect();
    const down = (await events(wsA, 'watch.score_crossed')).filter(
      (e) => e.data.watch.id === ids.ip && e.data.direction === 'down',
    );
    expect(down).toHaveLength(1);
    expect(down[0]!.data).toMatchObject({
      before: { score: 100, level: 'critical' },
      after: { score: current },
      threshold: current + 1,
    });
  });

  it('watch.reported tells the other workspace what a community-visible report may show, once, and never private reports', async () => {
    await followReports(s.app.db.prisma); // whatever the earlier tests reported
    const start = (await events(wsA, 'watch.reported')).length;
    const startB = (await events(wsB, 'watch.reported')).length;
    await report(b, {
      visibility: 'community',
      title: 'card testing ring',
      summary: 'private summary',
      details: 'private details',
      tags: ['internal-tag'],
      related_subjects: [{ kind: 'domain', key: 'evil.example', role: 'domain' }],
    });
    await report(b, { visibility: 'workspace', title: 'kept to B' });
    await report(b, { visibility: 'community', share_policy: 'amber_share', title: 'downgraded to workspace' });
    await report(a, { visibility: 'community', title: 'A reports its own watched IP' });
    await detect();
    await detect();
    const told = (await events(wsA, 'watch.reported')).slice(start);
    // The IP's own watch, the block and the AS holding it (named by the IP), and the related domain's.
    expect(told.map((e) => e.data.watch.id).sort()).toEqual([ids.ip, ids.asn, ids.cidr, ids.domain].sort());
    expect(told.find((e) => e.data.watch.id === ids.cidr)!.data).toMatchObject({
      watch: { id: ids.cidr, target_kind: 'cidr', target: '9.9.9.0/24' },
      subject: { kind: 'ipaddress', key: '9.9.9.9', role: 'subject' },
    });
    expect(told.find((e) => e.data.watch.id === ids.asn)!.data).toMatchObject({
      watch: { id: ids.asn, target_kind: 'asn', target: 'AS19281' },
      subject: { kind: 'ipaddress', key: '9.9.9.9' },
    });
    const onDomain = told.find((e) => e.data.watch.id === ids.domain)!;
    expect(onDomain.data).toEqual({
      watch: { id: ids.domain, target_kind: 'subject', target: 'domain:evil.example', score_threshold: null, note: '' },
      subject: { kind: 'domain', key: 'evil.example', role: 'domain' },
      report: {
        event_type: expect.any(String),
        outcome_code: 'fraud_confirmed',
        severity: 'critical',
        share_policy: 'clear_share',
        created_at: expect.any(String),
      },
      observed_at: expect.any(String),
    });
    expect(JSON.stringify(told)).not.toMatch(/card testing|private|internal-tag|downgraded|kept to B/);
    // B watches 9.9.9.9 too: A's community report reaches it, B's own never do.
    const toB = (await events(wsB, 'watch.reported')).slice(startB);
    expect(toB).toHaveLength(1);
    expect(toB[0]!.data).toMatchObject({
      watch: { id: ids.bIp },
      subject: { kind: 'ipaddress', key: '9.9.9.9', role: 'subject' },
    });
  });

  it.runIf(usingPostgres)(
    'watch.reported never skips a report whose transaction commits after a later one was followed',
    async () => {
      await followReports(s.app.db.prisma);
      const start = (await events(wsA, 'watch.reported')).length;
      let release!: () => void;
      const held = new Promise<void>((r) => {
        release = r;
      });
      let written!: () => void;
      const inserted = new Promise<void>((r) => {
        written = r;
      });
      // A report written in a transaction that stays open (its id comes first) ...
      const slow = s.app.db.prisma.$transaction(
        async (tx) => {
          const subject = await tx.subject.upsert({
            where: { workspaceId_kind_key: { workspaceId: wsB, kind: 'domain', key: 'evil.example' } },
            update: {},
            create: { workspaceId: wsB, kind: 'domain', key: 'evil.example' },
          });
          await tx.report.create({
            data: {
              workspaceId: wsB,
              subjectId: subject.id,
              eventType: 'outcome',
              outcomeCode: 'chargeback',
              severity: 'high',
              title: 'slow',
              summary: '',
              details: '',
              tags: [],
              status: 'open',
              sharePolicy: 'clear_share',
              namespace: 'default',
              requestedVisibility: 'community',
              effectiveVisibility: 'community',
              policyNotice: '',
            },
          });
          written();
          await held;
        },
        { timeout: 300_000 },
      );
      await inserted;
      // ... while a later report commits and the follower runs.
      await report(b, { visibility: 'community' });
      await followReports(s.app.db.prisma);
      const during = (await events(wsA, 'watch.reported')).slice(start);
      expect(during.map((e) => e.data.report.outcome_code)).not.toContain('chargeback');
      release();
      await slow;
      // The follower reads only below the oldest transaction still running anywhere on the database server (on
      // PostgreSQL that includes other test files' transactions), so it is followed until the late report is told.
      const told = async () => {
        const codes = new Set(
          (await events(wsA, 'watch.reported')).slice(start).map((e) => e.data.report.outcome_code),
        );
        return codes.has('chargeback') && codes.has('fraud_confirmed');
      };
      expect(await eventually(async () => (await followReports(s.app.db.prisma)) && told(), 60_000)).toBe(true);
      const after = (await events(wsA, 'watch.reported')).slice(start);
      expect(after.filter((e) => e.data.report.outcome_code === 'chargeback').map((e) => e.data.watch.id)).toEqual([
        ids.domain,
      ]);
      // The IP's watch and the block holding it (the AS's needs the network data, which this direct call does not give).
      expect(after.filter((e) => e.data.report.outcome_code === 'fraud_confirmed').map((e) => e.data.watch.id)).toEqual(
        [ids.ip, ids.cidr],
      );
    },
  );

  it('watch.spike_started fires once when the community signal starts spiking, not on the first check', async () => {
    const base = windowStart(Date.now()) + 20 * WINDOW_MS; // windows ahead of anything the other tests touched
    const settled = 10_000;
    await detect(base + settled); // the first check of each watch in this window: state only
    const before = (await events(wsA, 'watch.spike_started')).length;
    const h = s.app.services.network.resolve('9.9.9.9');
    for (let i = 0; i < 25; i++)
      await s.app.services.community.record(h, `198.51.100.${i + 1}`, base + WINDOW_MS + 1000 + i);
    await s.app.services.community.flush();
    await detect(base + WINDOW_MS + settled); // the lookups' window is still in progress: no spike yet
    expect((await events(wsA, 'watch.spike_started')).length).toBe(before);
    await detect(base + 2 * WINDOW_MS + settled);
    await detect(base + 2 * WINDOW_MS + settled);
    await detect(base + 3 * WINDOW_MS + settled); // still spiking: no new event
    const spikes = (await events(wsA, 'watch.spike_started')).slice(before);
    expect(spikes.map((e) => e.data.watch.id).sort()).toEqual([ids.ip, ids.asn, ids.cidr].sort());
    const onIp = spikes.find((e) => e.data.watch.id === ids.ip)!;
    expect(onIp.data.entities).toEqual([
      { key: 'ip:9.9.9.9', lookups_10m: expect.any(Number), requesters_60m: 25, spike_windows_7d: 1 },
    ]);
    expect(onIp.data.window_start).toBe(new Date(base + 2 * WINDOW_MS).toISOString());
    expect(spikes.find((e) => e.data.watch.id === ids.cidr)!.data.entities).toEqual([
      expect.objectContaining({ key: 'subnet:9.9.9.0/24' }),
    ]);
  });

  it('one client retrying never fires watch.spike_started on the IP, its block or its AS; three requesters do', async () => {
    const base = windowStart(Date.now()) + 40 * WINDOW_MS; // past the windows of the spike test above
    const settled = 10_000;
    await detect(base + settled);
    const before = (await events(wsA, 'watch.spike_started')).length;
    const h = s.app.services.network.resolve('9.9.9.9');
    for (let i = 0; i < 200; i++) await s.app.services.community.record(h, '198.51.100.99', base + WINDOW_MS + i);
    await s.app.services.community.flush();
    await detect(base + 2 * WINDOW_MS + settled);
    await detect(base + 3 * WINDOW_MS + settled);
    expect((await events(wsA, 'watch.spike_started')).length).toBe(before);
    // The same hits from three requesters converge: a spike (the test can fail).
    for (let i = 0; i < 60; i++)
      await s.app.services.community.record(h, `198.51.100.${100 + (i % 3)}`, base + 4 * WINDOW_MS + i);
    await s.app.services.community.flush();
    await detect(base + 5 * WINDOW_MS + settled);
    const spikes = (await events(wsA, 'watch.spike_started')).slice(before);
    expect(spikes.map((e) => e.data.watch.id).sort()).toEqual([ids.ip, ids.asn, ids.cidr].sort());
  });

  it('no endpoint wanting the type: the state still moves, no event is stored', async () => {
    await s.app.db.prisma.webhookEndpoint.updateMany({
      where: { workspaceId: wsB },
      data: { eventTypes: ['endpoint.test'] },
    });
    const before = await s.app.db.prisma.webhookEvent.count({ where: { workspaceId: wsB } });
    await report(a, { visibility: 'community' });
    await detect();
    expect(await s.app.db.prisma.webhookEvent.count({ where: { workspaceId: wsB } })).toBe(before);
    const cursor = await s.app.db.prisma.watchReportCursor.findUniqueOrThrow({ where: { id: 1 } });
    expect(cursor.reportId).toBe(0); // the follower read up to the horizon
  });
});
