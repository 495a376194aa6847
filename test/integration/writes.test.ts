import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';

const ISO_WITH_OFFSET = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

describe(`rate and report writebacks (${backendName})`, () => {
  let s: TestServer;
  let auth: Record<string, string>;
  beforeAll(async () => {
    s = await startTestServer();
    auth = { 'x-api-key': (await s.createKey('writes-ws')).secret };
  });
  afterAll(() => s?.close());

  it('rate stores canonical feedback and answers the spec shape', async () => {
    const r = await s.post('/risk_api/rate/', { ip: '2001:DB8:0:0::1', rating: -1, note: 'card testing' }, auth);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body).toEqual({
      ok: true,
      endpoint: 'rate',
      quota: { counted: false, reason: 'free_endpoint' },
      report: { ip: '2001:db8::1', rating: -1, created_at: expect.stringMatching(ISO_WITH_OFFSET) },
    });
    const stored = await s.app.db.prisma.rating.findFirst({
      where: { subject: { key: '2001:db8::1' } },
      include: { subject: true },
    });
    expect(stored).toMatchObject({ rating: -1, note: 'card testing', subject: { kind: 'ipaddress' } });
  });

  it('report stores the event, its subject and each related subject with its role', async () => {
    const r = await s.post(
      '/risk_api/report/',
      {
        kind: 'domain',
        key: 'Bücher.Example.',
        title: 'Card testing',
        summary: 'Many small charges',
        details: 'Seen over 2 hours',
        outcome_code: 'fraud_watch',
        severity: 'high',
        tags: ['Carding', 'card-testing'],
        related_subjects: [
          { kind: 'ipaddress', key: '198.51.100.7', role: 'source_ip' },
          { kind: 'email', key: 'Mallory@EXAMPLE.com', role: 'email' },
        ],
      },
      auth,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body).toMatchObject({
      ok: true,
      endpoint: 'report',
      query: { kind: 'domain', key: 'xn--bcher-kva.example', namespace: '' },
      quota: { counted: false, reason: 'free_endpoint' },
      memory: { requested_visibility: 'workspace', effective_visibility: 'workspace', policy_notice: '' },
      report: {
        id: expect.any(Number),
        event_type: 'observation',
        outcome_code: 'fraud_watch',
        title: 'Card testing',
        summary: 'Many small charges',
        severity: 'high',
        status: '',
        subject: { kind: 'domain', key: 'xn--bcher-kva.example', share_policy: 'clear_share' },
        related_subjects: [
          { kind: 'ipaddress', key: '198.51.100.7', role: 'source_ip' },
          { kind: 'email', key: 'Mallory@example.com', role: 'email' },
        ],
      },
    });
    const links = await s.app.db.prisma.reportLink.findMany({
      where: { reportId: r.body.report.id },
      include: { subject: true },
    });
    expect(links.map((l) => [l.subject.kind, l.subject.key, l.role]).sort()).toEqual([
      ['email', 'Mallory@example.com', 'email'],
      ['ipaddress', '198.51.100.7', 'source_ip'],
    ]);
  });

  it('says truthfully when a share policy downgrades a community visibility request', async () => {
    const r = await s.post(
      '/risk_api/report/',
      {
        kind: 'ipaddress',
        key: '198.51.100.8',
        outcome_code: 'spam',
        visibility: 'community',
        share_policy: 'amber_strict_share',
        namespace: 'Mail',
      },
      auth,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.query.namespace).toBe('mail');
    expect(r.body.memory.requested_visibility).toBe('community');
    expect(r.body.memory.effective_visibility).toBe('workspace');
    expect(r.body.memory.policy_notice).toContain('amber_strict_share');
  });

  it('honours community visibility when the share policy allows it', async () => {
    const r = await s.post(
      '/risk_api/report/',
      { kind: 'ipaddress', key: '198.51.100.9', outcome_code: 'spam', visibility: 'community' },
      auth,
    );
    expect(r.body.memory).toEqual({
      requested_visibility: 'community',
      effective_visibility: 'community',
      policy_notice: '',
    });
  });

  it('reuses one subject node for repeated and concurrent mentions', async () => {
    const body = {
      kind: 'ipaddress',
      key: '192.0.2.77',
      outcome_code: 'scraping',
      related_subjects: [{ kind: 'domain', key: 'shared.example', role: 'domain' }],
    };
    const results = await Promise.all(Array.from({ length: 8 }, () => s.post('/risk_api/report/', body, auth)));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    const subjects = await s.app.db.prisma.subject.findMany({
      where: { key: { in: ['192.0.2.77', 'shared.example'] } },
    });
    expect(subjects).toHaveLength(2);
  });

  it('replays an Idempotency-Key retry without writing twice', async () => {
    const headers = { ...auth, 'idempotency-key': 'retry-1' };
    const before = await s.app.db.prisma.rating.count();
    const first = await s.post('/risk_api/rate/', { ip: '203.0.113.50', rating: 1 }, headers);
    const again = await s.post('/risk_api/rate/', { ip: '203.0.113.50', rating: 1 }, headers);
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await s.app.db.prisma.rating.count()).toBe(before + 1);
  });

  it('replays concurrent retries of one Idempotency-Key as one write', async () => {
    const headers = { ...auth, 'idempotency-key': 'burst-1' };
    const body = { kind: 'transaction', key: 'tx-123', outcome_code: 'chargeback' };
    const results = await Promise.all(Array.from({ length: 5 }, () => s.post('/risk_api/report/', body, headers)));
    const ids = new Set(results.map((r) => r.body.report?.id));
    expect(ids.size, JSON.stringify(results.map((r) => r.body))).toBe(1);
    expect(await s.app.db.prisma.report.count({ where: { subject: { key: 'tx-123' } } })).toBe(1);
  });

  it('refuses an Idempotency-Key reused with another body (409) and writes nothing', async () => {
    const headers = { ...auth, 'idempotency-key': 'retry-2' };
    await s.post('/risk_api/rate/', { ip: '203.0.113.51', rating: 1 }, headers);
    const before = await s.app.db.prisma.rating.count();
    const r = await s.post('/risk_api/rate/', { ip: '203.0.113.51', rating: -1 }, headers);
    expect(r.status).toBe(409);
    expect(r.body.error).toBe('idempotency_key_reused');
    expect(await s.app.db.prisma.rating.count()).toBe(before);
  });

  it('keeps idempotency keys per workspace', async () => {
    const other = { 'x-api-key': (await s.createKey('writes-other')).secret, 'idempotency-key': 'retry-1' };
    const r = await s.post('/risk_api/rate/', { ip: '203.0.113.50', rating: 1 }, other);
    expect(r.status).toBe(201);
  });
});
