import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphQLClient } from 'graphql-request';
import {
  getNamedType,
  isInterfaceType,
  isLeafType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLNamedType,
} from 'graphql';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { analystClient, rateIp, writeReport } from '../helpers/analyst.ts';
import { schema } from '../../src/transport/graphql/schema.ts';

/**
 * Walks EVERY field of every type reachable from every root query field, generated from the
 * schema (so a new field is walked without touching this test), with workspace B's key and
 * workspace A's identifiers as arguments: nothing private to A may come back.
 */
const SECRET = 'secret-a';
const A_IP = '8.8.4.4'; // in AS15169, like B's own 8.8.8.8: the AS's `ips` must list only B's

function selection(type: GraphQLNamedType, depth: number): string {
  if (isLeafType(type)) return '';
  if (depth === 0) return '{ __typename }';
  if (isInterfaceType(type)) {
    return `{ __typename ${schema
      .getPossibleTypes(type)
      .map((t) => `... on ${t.name} ${selection(t, depth - 1)}`)
      .join(' ')} }`;
  }
  if (!isObjectType(type)) return '{ __typename }';
  const parts = Object.values(type.getFields())
    .map((f) => fieldText(f, depth))
    .filter(Boolean);
  return `{ __typename ${parts.join(' ')} }`;
}

function fieldText(f: GraphQLField<unknown, unknown>, depth: number): string | null {
  const args: string[] = [];
  for (const a of f.args) {
    if (a.name === 'first' || a.name === 'limit')
      args.push(`${a.name}: 3`); // lists sized, to stay within the cost limit
    else if (isNonNullType(a.type)) return null; // nested fields with required args: none today
  }
  return `${f.name}${args.length ? `(${args.join(', ')})` : ''} ${selection(getNamedType(f.type), depth - 1)}`;
}

describe(`workspace isolation across the whole graph (${backendName})`, () => {
  let s: TestServer;
  let b: GraphQLClient;
  const rootArgs: Record<string, string> = {};
  beforeAll(async () => {
    s = await startTestServer();
    const a = await analystClient(s, 'iso-a');
    b = await analystClient(s, 'iso-b', 'developer'); // reads dimension summaries
    const aReport = await writeReport(a, {
      kind: 'email',
      key: `${SECRET}@example.com`,
      outcomeCode: 'account_takeover',
      title: `${SECRET} title`,
      summary: `${SECRET} summary`,
      tags: [SECRET],
      namespace: SECRET,
      sharePolicy: 'red_share',
      relatedSubjects: [
        { kind: 'ipaddress', key: A_IP, role: 'source_ip' },
        { kind: 'domain', key: `${SECRET}.example` },
      ],
    });
    const aRating = await rateIp(a, A_IP, -1, `${SECRET} note`);
    const aSubject = await a.request<any>(`{ subject(kind: email, key: "${SECRET}@example.com") { id } }`);
    // A's override rules on its IP and on the AS both IPs share; B's own on another address, so the rule walks reach data.
    await a.request(
      `mutation { createOverride(input: { target: "${A_IP}", action: deny, reason: "${SECRET} rule", note: "${SECRET}" }) { id } }`,
    );
    await a.request(
      `mutation { createOverride(input: { target: "AS15169", action: adjust, points: 40, reason: "${SECRET} as" }) { id } }`,
    );
    await b.request(
      'mutation { createOverride(input: { target: "1.1.1.1", action: allow, reason: "b-own rule" }) { id } }',
    );
    await writeReport(b, {
      kind: 'domain',
      key: 'b-own.example',
      outcomeCode: 'spam',
      relatedSubjects: [{ kind: 'ipaddress', key: '8.8.8.8' }],
    });
    // A's webhook endpoint and a delivery with an attempt (failed: the delivery loop leaves it be); B's own endpoint.
    const hook = await a.request<any>(
      `mutation { createWebhookEndpoint(input: { url: "https://${SECRET}.example/hook", eventTypes: ["watch.reported"], description: "${SECRET}" }) { endpoint { id } } }`,
    );
    const endpoint = await s.app.db.prisma.webhookEndpoint.findUniqueOrThrow({
      where: { id: hook.createWebhookEndpoint.endpoint.id },
    });
    const event = await s.app.db.prisma.webhookEvent.create({
      data: {
        publicId: `evt_${SECRET}`,
        workspaceId: endpoint.workspaceId,
        type: 'watch.reported',
        data: { subject: SECRET },
      },
    });
    const delivery = await s.app.db.prisma.webhookDelivery.create({
      data: {
        eventId: event.id,
        endpointId: endpoint.id,
        workspaceId: endpoint.workspaceId,
        status: 'failed',
        attempts: 1,
      },
    });
    await s.app.db.prisma.webhookAttempt.create({
      data: {
        deliveryId: delivery.id,
        workspaceId: endpoint.workspaceId,
        latencyMs: 3,
        httpStatus: 500,
        error: SECRET,
        responseExcerpt: SECRET,
      },
    });
    await b.request(
      'mutation { createWebhookEndpoint(input: { url: "https://b-own.example/hook", eventTypes: ["watch.reported"] }) { secret } }',
    );
    const day = 86_400_000;
    Object.assign(rootArgs, {
      subject: `(kind: email, key: "${SECRET}@example.com")`,
      report: `(id: ${aReport.databaseId})`,
      node: `(id: "${aReport.id}")`,
      nodes: `(ids: ["${aReport.id}", "${aRating.id}", "${aSubject.subject.id}"])`,
      reports: '(first: 20)',
      ratingsOfIp: `(ip: "${A_IP}", first: 5)`,
      topSubjects: '(limit: 20)',
      reportCountsByOutcome: `(from: "${new Date(Date.now() - day).toISOString()}", to: "${new Date(Date.now() + day).toISOString()}")`,
      ip: '(address: "8.8.8.8")',
      dimensionEntity: '(code: asn, key: "AS15169")',
      scoreBatch: '(ips: ["8.8.8.8"])',
      block: '(cidr: "8.8.0.0/16")',
      overrides: '(state: all, first: 20)',
      watches: '(first: 20)',
      overrideAudit: '(first: 20)',
      webhookEndpoints: '(first: 20)',
      webhookDeliveries: '(first: 20)',
      viewer: '',
    });
  });
  afterAll(() => s?.close());

  it('has arguments for every root query field (a new root field must be added to this walk)', () => {
    const roots = Object.values(schema.getQueryType()!.getFields())
      .filter((f) => f.name !== 'score')
      .map((f) => f.name)
      .sort();
    expect(roots).toEqual(Object.keys(rootArgs).sort());
  });

  it("shows B nothing of A's private memory from any field", async () => {
    const seen: string[] = [];
    for (const [name, args] of Object.entries(rootArgs)) {
      const field = schema.getQueryType()!.getFields()[name]!;
      const query = `{ ${name}${args} ${selection(getNamedType(field.type), 5)} }`;
      const response = await fetch(`${s.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': (b as any).requestConfig.headers['x-api-key'] },
        body: JSON.stringify({ query }),
      });
      const text = await response.text();
      expect(text, `${name}: ${text.slice(0, 500)}`).not.toContain('"errors"');
      expect(text, `${name} leaked: ${text.slice(0, 2000)}`).not.toContain(SECRET);
      expect(text, `${name} leaked A's IP: ${text.slice(0, 2000)}`).not.toContain(A_IP);
      seen.push(text);
    }
    // The walk reached B's own data, so the absence of A's is not an empty graph.
    expect(seen.join('\n')).toContain('b-own.example');
    expect(seen.join('\n')).toContain('b-own rule');
  });
});
