import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, type GraphQLClient } from 'graphql-request';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { analystClient, rateIp, writeReport } from '../helpers/analyst.ts';

/** Walks of the analyst graph with graphql-request: subjects ↔ reports ↔ subjects ↔ network dimensions. */
describe(`analyst graph walks (${backendName})`, () => {
  let s: TestServer;
  let a: GraphQLClient;
  let ato: { id: string; databaseId: number };
  let spam: { id: string; databaseId: number };
  beforeAll(async () => {
    s = await startTestServer();
    a = await analystClient(s, 'walk-a', 'developer'); // its walks read dimension summaries
    ato = await writeReport(a, {
      kind: 'email',
      key: 'alice@example.com',
      outcomeCode: 'account_takeover',
      severity: 'critical',
      relatedSubjects: [
        { kind: 'ipaddress', key: '8.8.8.8', role: 'source_ip' },
        { kind: 'domain', key: 'evil.example' },
      ],
    });
    spam = await writeReport(a, {
      kind: 'domain',
      key: 'evil.example',
      outcomeCode: 'spam',
      severity: 'low',
      relatedSubjects: [{ kind: 'ipaddress', key: '8.8.4.4', role: 'source_ip' }],
    });
    await rateIp(a, '8.8.8.8', -1, 'first');
    await rateIp(a, '8.8.8.8', 1, 'second');
  });
  afterAll(() => s?.close());

  it("walks email → report → domain → its reports → IP → AS → the AS's other IPs (five hops)", async () => {
    // Every list sized: unsized, the related subjects would count at their maximum of 50 each (the cost limit).
    const data = await a.request<any>(gql`{
      subject(kind: email, key: "alice@example.com") {
        kind key
        reports(first: 3) { totalCount nodes { databaseId relatedSubjects(limit: 3) { role subject {
          kind key
          reports(first: 3) { nodes { databaseId outcomeCode relatedSubjects(limit: 3) { role subject {
            key
            ipDimensions { dimensions { code entity { key ips(first: 3) { totalCount nodes { key } } } } }
          } } } }
        } } } }
      }
    }`);
    const subject = data.subject;
    expect(subject.reports.totalCount).toBe(1);
    const links = subject.reports.nodes[0].relatedSubjects;
    expect(links.map((l: any) => [l.role, l.subject.key])).toEqual([
      ['source_ip', '8.8.8.8'],
      ['linked', 'evil.example'],
    ]);
    const domainReports = links[1].subject.reports.nodes;
    expect(domainReports).toHaveLength(1);
    expect(domainReports[0]).toMatchObject({ databaseId: spam.databaseId, outcomeCode: 'spam' });
    const ip = domainReports[0].relatedSubjects[0].subject;
    expect(ip.key).toBe('8.8.4.4');
    const asn = ip.ipDimensions.dimensions.find((d: any) => d.code === 'asn');
    expect(asn.entity.key, JSON.stringify(ip.ipDimensions)).toBe('AS15169');
    // Back from the AS to the workspace's IPs in it that have evidence.
    expect(asn.entity.ips.nodes.map((n: any) => n.key).sort()).toEqual(['8.8.4.4', '8.8.8.8']);
    expect(asn.entity.ips.totalCount).toBe(2);
  });

  it("lists a subject's co-linked subjects with roles, its mentions and its ratings", async () => {
    const data = await a.request<any>(gql`{
      ip: subject(kind: ipaddress, key: "8.8.8.8") {
        mentions { totalCount nodes { role report { databaseId subject { key } } } }
        ratings { totalCount nodes { rating note } }
        relatedSubjects { roles sharedReports subject { kind key } }
      }
    }`);
    expect(data.ip.mentions).toEqual({
      totalCount: 1,
      nodes: [{ role: 'source_ip', report: { databaseId: ato.databaseId, subject: { key: 'alice@example.com' } } }],
    });
    expect(data.ip.ratings).toEqual({
      totalCount: 2,
      nodes: [
        { rating: 1, note: 'second' },
        { rating: -1, note: 'first' },
      ],
    });
    expect(data.ip.relatedSubjects).toEqual([
      { roles: ['subject'], sharedReports: 1, subject: { kind: 'email', key: 'alice@example.com' } },
      { roles: ['linked'], sharedReports: 1, subject: { kind: 'domain', key: 'evil.example' } },
    ]);
  });

  it('starts from a global node id, and answers nodes() in order with null for unknown ids', async () => {
    const data = await a.request<any>(
      gql`query($id: ID!, $ids: [ID!]!) {
      node(id: $id) { __typename id ... on Report { outcomeCode subject { key } } }
      nodes(ids: $ids) { __typename ... on Report { databaseId } ... on Subject { key } }
    }`,
      { id: ato.id, ids: [spam.id, Buffer.from('Report:999999').toString('base64url'), ato.id] },
    );
    expect(data.node).toEqual({
      __typename: 'Report',
      id: ato.id,
      outcomeCode: 'account_takeover',
      subject: { key: 'alice@example.com' },
    });
    expect(data.nodes).toEqual([
      { __typename: 'Report', databaseId: spam.databaseId },
      null,
      { __typename: 'Report', databaseId: ato.databaseId },
    ]);
    const subject = await a.request<any>(gql`{ subject(kind: domain, key: "evil.example") { id } }`);
    const again = await a.request<any>(gql`query($id: ID!) { node(id: $id) { ... on Subject { kind key } } }`, {
      id: subject.subject.id,
    });
    expect(again.node).toEqual({ kind: 'domain', key: 'evil.example' });
  });

  it('shows ipDimensions only for IP subjects, with published and workspace summaries fields', async () => {
    const data = await a.request<any>(gql`{
      e: subject(kind: email, key: "alice@example.com") { ipDimensions { address } }
      i: subject(kind: ipaddress, key: "8.8.8.8") { ipDimensions { address publication { version } dimensions { code matched published { score } } } }
    }`);
    expect(data.e.ipDimensions).toBeNull();
    expect(data.i.ipDimensions.address).toBe('8.8.8.8');
    expect(data.i.ipDimensions.dimensions.map((d: any) => d.code)).toEqual([
      'ip',
      'subnet',
      'isp',
      'asn',
      'org',
      'city',
      'region',
      'country',
    ]);
  });

  it('rates an IP over time in a window, newest first', async () => {
    const all = await a.request<any>(gql`{ ratingsOfIp(ip: "8.8.8.8") { totalCount nodes { rating createdAt } } }`);
    expect(all.ratingsOfIp.totalCount).toBe(2);
    const [newest, oldest] = all.ratingsOfIp.nodes;
    const windowed = await a.request<any>(
      gql`query($from: DateTime, $to: DateTime) { ratingsOfIp(ip: "8.8.8.8", from: $from, to: $to) { totalCount nodes { rating } } }`,
      { from: oldest.createdAt, to: newest.createdAt },
    );
    expect(windowed.ratingsOfIp).toEqual(
      newest.createdAt === oldest.createdAt ? { totalCount: 0, nodes: [] } : { totalCount: 1, nodes: [{ rating: -1 }] },
    );
    const bad = await a.request(gql`{ ratingsOfIp(ip: "not-an-ip") { totalCount } }`).catch((e) => e);
    expect(bad.response.errors[0].extensions.code).toBe('invalid_request');
  });

  it('aggregates reports per outcome per UTC day and ranks subjects by reports', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - 86_400_000).toISOString();
    const to = new Date(Date.now() + 86_400_000).toISOString();
    const data = await a.request<any>(
      gql`query($from: DateTime!, $to: DateTime!) {
      reportCountsByOutcome(from: $from, to: $to) { day outcomeCode count }
      topSubjects(limit: 2) { reports subject { kind key } }
      topIps: topSubjects(kind: ipaddress) { reports subject { key } }
    }`,
      { from, to },
    );
    expect(data.reportCountsByOutcome).toEqual([
      { day: today, outcomeCode: 'account_takeover', count: 1 },
      { day: today, outcomeCode: 'spam', count: 1 },
    ]);
    expect(data.topSubjects).toEqual([
      { reports: 2, subject: { kind: 'domain', key: 'evil.example' } },
      { reports: 1, subject: { kind: 'email', key: 'alice@example.com' } },
    ]);
    expect(data.topIps).toEqual([
      { reports: 1, subject: { key: '8.8.8.8' } },
      { reports: 1, subject: { key: '8.8.4.4' } },
    ]);
  });
});
