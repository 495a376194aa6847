import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GraphQLClient, ClientError, gql } from 'graphql-request';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';

const SUBJECT = gql`query Subject($kind: SubjectKind!, $key: String!) {
  subject(kind: $kind, key: $key) {
    kind key
    reports { nodes { databaseId outcomeCode severity relatedSubjects { role subject { kind key } } } }
    mentions { nodes { role report { databaseId subject { kind key } } } }
    ratings { nodes { rating note ip } }
  }
}`;

describe(`GraphQL at /graphql (${backendName})`, () => {
  let s: TestServer;
  let a: GraphQLClient;
  let b: GraphQLClient;
  beforeAll(async () => {
    s = await startTestServer();
    a = new GraphQLClient(`${s.url}/graphql`, {
      headers: { 'x-api-key': (await s.createKey('graph-a', { name: 'analyst' })).secret },
    });
    b = new GraphQLClient(`${s.url}/graphql`, {
      headers: { authorization: `Bearer ${(await s.createKey('graph-b')).secret}` },
    });
  });
  afterAll(() => s?.close());

  it('identifies the caller', async () => {
    const data = await a.request<any>(gql`{ viewer { workspace { name tier } apiKey { name prefix } } }`);
    expect(data.viewer).toMatchObject({
      workspace: { name: 'graph-a', tier: 'free' },
      apiKey: { name: 'analyst', prefix: expect.stringMatching(/^rk_/) },
    });
  });

  it('writes through mutations and reads the subject graph back with roles', async () => {
    const written = await a.request<any>(gql`mutation {
      report(input: { kind: email, key: "fraudster@Example.COM", outcomeCode: account_takeover, severity: critical,
        relatedSubjects: [{ kind: ipaddress, key: "198.51.100.20", role: source_ip }, { kind: phone, key: "+1 (415) 555-0100", role: phone }] }) {
        replayed quota { counted reason } report { databaseId subject { key } }
      }
      rate(input: { ip: "198.51.100.20", rating: -1, note: "same actor" }) { rating { ip rating } }
    }`);
    expect(written.report).toMatchObject({
      replayed: false,
      quota: { counted: false, reason: 'free_endpoint' },
      report: { subject: { key: 'fraudster@example.com' } },
    });
    const email = await a.request<any>(SUBJECT, { kind: 'email', key: 'fraudster@example.com' });
    expect(email.subject.reports.nodes).toEqual([
      {
        databaseId: written.report.report.databaseId,
        outcomeCode: 'account_takeover',
        severity: 'critical',
        relatedSubjects: [
          { role: 'source_ip', subject: { kind: 'ipaddress', key: '198.51.100.20' } },
          { role: 'phone', subject: { kind: 'phone', key: '+14155550100' } },
        ],
      },
    ]);
    const ip = await a.request<any>(SUBJECT, { kind: 'ipaddress', key: '198.51.100.20' });
    expect(ip.subject.mentions.nodes).toEqual([
      {
        role: 'source_ip',
        report: {
          databaseId: written.report.report.databaseId,
          subject: { kind: 'email', key: 'fraudster@example.com' },
        },
      },
    ]);
    expect(ip.subject.ratings.nodes).toEqual([{ rating: -1, note: 'same actor', ip: '198.51.100.20' }]);
    const byId = await a.request<any>(gql`query($id: Int!) { report(id: $id) { databaseId title subject { kind } } }`, {
      id: written.report.report.databaseId,
    });
    expect(byId.report).toMatchObject({ databaseId: written.report.report.databaseId, subject: { kind: 'email' } });
  });

  it('shows another workspace nothing of this one', async () => {
    const written = await a.request<any>(
      gql`mutation { report(input: { kind: domain, key: "private.example", outcomeCode: spam }) { report { databaseId } } }`,
    );
    const byId = await b.request<any>(gql`query($id: Int!) { report(id: $id) { databaseId } }`, {
      id: written.report.report.databaseId,
    });
    expect(byId.report).toBeNull();
    const subject = await b.request<any>(SUBJECT, { kind: 'domain', key: 'private.example' });
    expect(subject.subject).toBeNull();
  });

  it('answers a call without a key with the missing_api_key code', async () => {
    const anonymous = new GraphQLClient(`${s.url}/graphql`);
    const error = await anonymous.request(gql`{ viewer { workspace { name } } }`).catch((e) => e);
    expect(error).toBeInstanceOf(ClientError);
    expect((error as ClientError).response.errors?.[0]?.extensions?.code).toBe('missing_api_key');
  });

  it('answers an invalid key with 401 invalid_api_key', async () => {
    const res = await fetch(`${s.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'rk_bogus' },
      body: JSON.stringify({ query: '{ viewer { workspace { name } } }' }),
    });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(401);
    expect(body.errors[0].extensions.code).toBe('invalid_api_key');
  });

  it('validates mutation input with the same rules and field names as REST (camelCase)', async () => {
    const error = await a
      .request(
        gql`mutation { report(input: { kind: domain, key: "not a domain", outcomeCode: spam, tags: ["no spaces"] }) { replayed } }`,
      )
      .catch((e) => e);
    const ext = (error as ClientError).response.errors?.[0]?.extensions as {
      code: string;
      details: Array<{ field: string }>;
    };
    expect(ext.code).toBe('invalid_request');
    expect(ext.details.map((d) => d.field).sort()).toEqual(['key', 'tags[0]']);
  });

  it('takes the closed vocabularies as enums spelt as REST spells them, and refuses other values as invalid_request', async () => {
    const write = gql`mutation($input: ReportInput!) { report(input: $input) { report { outcomeCode severity sharePolicy eventType requestedVisibility relatedSubjects { role } } } }`;
    const input = {
      kind: 'domain',
      key: 'enum.example',
      outcomeCode: 'fraud_watch',
      severity: 'high',
      sharePolicy: 'amber_strict_share',
      eventType: 'alert',
      visibility: 'community',
      relatedSubjects: [{ kind: 'ipaddress', key: '198.51.100.9', role: 'source_ip' }],
    };
    expect((await a.request<any>(write, { input })).report.report).toEqual({
      outcomeCode: 'fraud_watch',
      severity: 'high',
      sharePolicy: 'amber_strict_share',
      eventType: 'alert',
      requestedVisibility: 'community',
      relatedSubjects: [{ role: 'source_ip' }],
    });
    for (const wrong of [
      { outcomeCode: 'nope' },
      { severity: 'HIGH' },
      { kind: 'ip' },
      { relatedSubjects: [{ kind: 'ipaddress', key: '198.51.100.9', role: 'attacker' }] },
    ]) {
      const error = await a.request(write, { input: { ...input, ...wrong } }).catch((e) => e);
      expect((error as ClientError).response.errors?.[0]?.extensions?.code, JSON.stringify(wrong)).toBe(
        'invalid_request',
      );
    }
    const literal = await a
      .request(gql`mutation { report(input: { kind: domain, key: "enum.example", outcomeCode: "spam" }) { replayed } }`)
      .catch((e) => e);
    expect((literal as ClientError).response.errors?.[0]?.message).toMatch(
      /Enum "OutcomeCode" cannot represent non-enum value: "spam"/,
    );
  });

  it('serves GraphiQL on GET for browsers', async () => {
    const res = await fetch(`${s.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('GraphiQL');
  });
});
