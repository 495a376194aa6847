import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  isInterfaceType,
  isLeafType,
  isNonNullType,
  isObjectType,
  isUnionType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { Browserish, heldMail } from '../web/harness.ts';
import { revokeApiKey, setWorkspaceTier } from '../../src/domain/access/keys.ts';
import { publish } from '../../src/domain/publishing/index.ts';

/**
 * Workspace isolation over the whole surface, enumerated from the running service so that a new
 * field or endpoint fails this test until it is covered:
 *   - GraphQL: every root query and mutation field of the introspected schema at /graphql, every
 *     query walked five levels deep through every object field;
 *   - REST: every path of /risk_api/openapi.json and of the router, every method its 405 `Allow`
 *     header names;
 *   - the control plane's pages.
 * With workspace B's key (or session) and A's identifiers as arguments, nothing private to A comes
 * back. Then: a revoked key fails on all of it within KEY_CACHE_TTL_MS; the control plane refuses
 * API keys; the API refuses sessions.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const SECRET = `a-private-${randomBytes(4).toString('hex')}`;
const A_IP = '8.8.4.4'; // in AS15169 like B's own 8.8.8.8: shared entities must show only B's evidence
const B_IP = '8.8.8.8';
const C_IP = '192.0.2.55'; // what B writes with A's Idempotency-Key: a replay of A's write would show A's subject instead
const TTL_MS = 1000;
const IDEM = 'shared-idempotency-key-1';

type Answer = { status: number; text: string; body: any; headers: Headers };
async function call(url: string, method: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const res = await fetch(url, {
    method,
    redirect: 'manual',
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* keep text */
  }
  return { status: res.status, text, body: parsed, headers: res.headers };
}

/** A selection of every field `depth` levels down (connections with first: 3, lists with limit: 3, within the cost limit); fields needing other arguments are reported. */
function selectionOf(schema: GraphQLSchema, type: GraphQLNamedType, depth: number, skipped: Set<string>): string {
  if (isLeafType(type)) return '';
  if (depth === 0) return '{ __typename }';
  if (isInterfaceType(type) || isUnionType(type)) {
    return `{ __typename ${schema
      .getPossibleTypes(type)
      .map((t) => `... on ${t.name} ${selectionOf(schema, t, depth - 1, skipped)}`)
      .join(' ')} }`;
  }
  if (!isObjectType(type)) return '{ __typename }';
  const parts = Object.values(type.getFields())
    .map((f) => fieldText(schema, type.name, f, depth, skipped))
    .filter(Boolean);
  return `{ __typename ${parts.join(' ')} }`;
}

function fieldText(
  schema: GraphQLSchema,
  owner: string,
  f: GraphQLField<unknown, unknown>,
  depth: number,
  skipped: Set<string>,
): string | null {
  const args: string[] = [];
  for (const a of f.args) {
    if (a.name === 'first' || a.name === 'limit') args.push(`${a.name}: 3`);
    else if (isNonNullType(a.type) && a.defaultValue === undefined) {
      skipped.add(`${owner}.${f.name}`);
      return null;
    }
  }
  return `${f.name}${args.length ? `(${args.join(', ')})` : ''} ${selectionOf(schema, getNamedType(f.type), depth - 1, skipped)}`;
}

describe(`isolation and key handling over every field and endpoint (${backendName})`, () => {
  let s: TestServer;
  let schema: GraphQLSchema;
  let ua: Browserish;
  let ub: Browserish;
  let keyA: string, keyB: string, keyRevoked: string, revokedPrefix: string;
  let aReportId: number,
    aRatingCreatedAt: string,
    aRuleId: number,
    aWatchId: number,
    aEndpointId: number,
    aDeliveryId: number;
  const aPrefixes: string[] = [];
  const rootArgs: Record<string, string> = {};
  const skippedNested = new Set<string>();

  beforeAll(async () => {
    s = await startTestServer({ KEY_CACHE_TTL_MS: String(TTL_MS), PUBLISH_INTERVAL_MS: '0' });
    // Two registered accounts, each with its own workspace, on a tier that includes score.
    const inbox = (to: string, match: RegExp) => heldMail(s.app, to, match); // no SMTP here: mail is held in the outbox
    ua = new Browserish(s.url, { inbox });
    ub = new Browserish(s.url, { inbox });
    expect((await ua.signUp(`iso-a-${SECRET}@example.com`)).status).toBe(303);
    expect((await ub.signUp('iso-b@example.com')).status).toBe(303);
    const accounts = await s.app.db.prisma.account.findMany({ include: { workspace: true }, orderBy: { id: 'asc' } });
    const [wsA, wsB] = [accounts[0]!.workspace.name, accounts[1]!.workspace.name];
    await setWorkspaceTier(s.app.db.prisma, wsA, 'developer');
    // Startup: a burst limit (25/s) that the walks' score, batch and block calls within one second stay under.
    await setWorkspaceTier(s.app.db.prisma, wsB, 'startup');
    s.app.verifier.invalidate();
    const a = await s.createKey(wsA, { name: `${SECRET} key` });
    const revoked = await s.createKey(wsA, { name: 'to revoke' });
    keyA = a.secret;
    keyRevoked = revoked.secret;
    revokedPrefix = revoked.prefix;
    aPrefixes.push(a.prefix, revoked.prefix);
    keyB = (await s.createKey(wsB)).secret;

    // A's private memory, written with an Idempotency-Key B will reuse.
    const authA = { 'x-api-key': keyA };
    const report = await call(
      `${s.url}/risk_api/report/`,
      'POST',
      { ...authA, 'idempotency-key': IDEM },
      {
        kind: 'email',
        key: `${SECRET}@example.com`,
        outcome_code: 'account_takeover',
        title: `${SECRET} title`,
        summary: `${SECRET} summary`,
        details: `${SECRET} details`,
        tags: [SECRET],
        namespace: SECRET,
        share_policy: 'red_share',
        related_subjects: [
          { kind: 'ipaddress', key: A_IP, role: 'source_ip' },
          { kind: 'domain', key: `${SECRET}.example` },
        ],
      },
    );
    expect(report.status, report.text).toBe(201);
    aReportId = report.body.report.id;
    const aboutIp = await call(
      `${s.url}/risk_api/report/`,
      'POST',
      { ...authA, 'idempotency-key': `${IDEM}-rest` },
      { kind: 'ipaddress', key: A_IP, outcome_code: 'fraud_confirmed', title: `${SECRET} ip` },
    );
    expect(aboutIp.status, aboutIp.text).toBe(201);
    const rating = await call(
      `${s.url}/risk_api/rate/`,
      'POST',
      { ...authA, 'idempotency-key': `${IDEM}-rate` },
      { ip: A_IP, rating: -1, note: `${SECRET} note` },
    );
    expect(rating.status, rating.text).toBe(201);
    aRatingCreatedAt = rating.body.report.created_at;
    const rating2 = await call(
      `${s.url}/risk_api/rate/`,
      'POST',
      { ...authA, 'idempotency-key': `${IDEM}-rest-rate` },
      { ip: A_IP, rating: -1, note: `${SECRET} note 2` },
    );
    expect(rating2.status, rating2.text).toBe(201);
    // Keys A used that B's bulk writes reuse (B's report and rate calls above and below use A's others).
    for (const key of [`${IDEM}-bulk`, `${IDEM}-bulk-rest`]) {
      const bulkKeyed = await call(
        `${s.url}/risk_api/report/`,
        'POST',
        { ...authA, 'idempotency-key': key },
        { kind: 'ipaddress', key: A_IP, outcome_code: 'spam', title: `${SECRET} ${key}` },
      );
      expect(bulkKeyed.status, bulkKeyed.text).toBe(201);
    }
    // A's override rule on its IP, and on the AS both IPs share: B's scores, lists, audit trail and expiry never reach them.
    const rule = await call(`${s.url}/risk_api/overrides/`, 'POST', authA, {
      target: A_IP,
      action: 'deny',
      reason: `${SECRET} reason`,
      note: `${SECRET} note`,
    });
    expect(rule.status, rule.text).toBe(201);
    aRuleId = rule.body.rule.id;
    const asRule = await call(`${s.url}/risk_api/overrides/`, 'POST', authA, {
      target: 'AS15169',
      action: 'adjust',
      points: 50,
      reason: `${SECRET} as`,
    });
    expect(asRule.status, asRule.text).toBe(201);
    // A's watches on its IP and on a subject of its private report: B's lists, changes and pages never reach them.
    const watch = await call(`${s.url}/risk_api/watches/`, 'POST', authA, {
      target: A_IP,
      score_threshold: 50,
      note: `${SECRET} watch`,
    });
    expect(watch.status, watch.text).toBe(201);
    aWatchId = watch.body.watch.id;
    const subjectWatch = await call(`${s.url}/risk_api/watches/`, 'POST', authA, {
      subject: { kind: 'domain', key: `${SECRET}.example` },
    });
    expect(subjectWatch.status, subjectWatch.text).toBe(201);
    // A's webhook endpoint with a delivery and its attempt, every text field carrying the secret (disabled: the loop leaves it be).
    const endpoint = await s.app.db.prisma.webhookEndpoint.create({
      data: {
        workspaceId: accounts[0]!.workspaceId,
        url: `https://${SECRET}.example/hook`,
        eventTypes: ['watch.reported'],
        description: `${SECRET} hook`,
        secret: `whsec_${SECRET}`,
        status: 'disabled',
        disabledReason: `${SECRET} off`,
      },
    });
    aEndpointId = endpoint.id;
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
    aDeliveryId = delivery.id;
    await s.app.db.prisma.webhookAttempt.create({
      data: {
        deliveryId: delivery.id,
        workspaceId: endpoint.workspaceId,
        latencyMs: 5,
        httpStatus: 500,
        error: `${SECRET} error`,
        responseExcerpt: `${SECRET} body`,
      },
    });
    // B's own memory, so every walk reaches real data and an empty answer is not the reason nothing leaks.
    const own = await call(
      `${s.url}/risk_api/report/`,
      'POST',
      { 'x-api-key': keyB },
      {
        kind: 'domain',
        key: 'b-own.example',
        outcome_code: 'spam',
        related_subjects: [{ kind: 'ipaddress', key: B_IP }],
      },
    );
    expect(own.status, own.text).toBe(201);
    // A publication: A now has a contextual layer (its private summaries) next to B's.
    await publish(s.app.db.prisma, s.app.services.network);
    await s.app.services.publications.refresh();

    const intro = await call(`${s.url}/graphql`, 'POST', { 'x-api-key': keyB }, { query: getIntrospectionQuery() });
    expect(intro.body.errors, intro.text.slice(0, 500)).toBeUndefined();
    schema = buildClientSchema(intro.body.data as IntrospectionQuery);

    const node = await call(`${s.url}/graphql`, 'POST', authA, {
      query: `{ report(id: ${aReportId}) { id subject { id } } ratingsOfIp(ip: "${A_IP}", first: 1) { nodes { id } } }`,
    });
    const day = 86_400_000;
    Object.assign(rootArgs, {
      subject: `(kind: email, key: "${SECRET}@example.com")`,
      report: `(id: ${aReportId})`,
      node: `(id: "${node.body.data.report.id}")`,
      nodes: `(ids: ["${node.body.data.report.id}", "${node.body.data.report.subject.id}", "${node.body.data.ratingsOfIp.nodes[0].id}"])`,
      reports: '(first: 20)',
      ratingsOfIp: `(ip: "${A_IP}", first: 5)`,
      topSubjects: '(limit: 20)',
      reportCountsByOutcome: `(from: "${new Date(Date.now() - day).toISOString()}", to: "${new Date(Date.now() + day).toISOString()}")`,
      ip: `(address: "${B_IP}")`,
      dimensionEntity: '(code: asn, key: "AS15169")',
      score: `(ip: "${B_IP}")`,
      scoreBatch: `(ips: ["${B_IP}", "${C_IP}"])`,
      block: '(cidr: "8.8.0.0/16")',
      overrides: '(state: all, first: 20)',
      overrideAudit: '(first: 20)',
      watches: '(first: 20)',
      webhookEndpoints: '(first: 20)',
      webhookDeliveries: '(first: 20)',
      viewer: '',
    });
  });
  afterAll(() => s?.close());

  const expireQuery = () => `mutation { expireOverride(id: ${aRuleId}) { id reason note } }`;
  const queryOf = (name: string) => {
    const field = schema.getQueryType()!.getFields()[name]!;
    return `{ ${name}${rootArgs[name]} ${selectionOf(schema, getNamedType(field.type), 5, skippedNested)} }`;
  };

  /** Mutations, run by B reusing A's Idempotency-Key: B's own write, never a replay of A's; or B acting on A's ids: refused. */
  const mutations: Record<string, { query: string; refused?: string; check(a: Answer): void | Promise<void> }> = {
    createOverride: {
      // the target of A's rule in force: a rule of B's own, which A's neither blocks nor shows through
      query: `mutation { createOverride(input: { target: "${A_IP}", action: allow, reason: "b own" }) { id reason note author { label } } }`,
      check(a) {
        expect(a.body.data.createOverride, a.text).toMatchObject({ reason: 'b own', note: '' });
        expect(a.body.data.createOverride.id).not.toBe(aRuleId);
      },
    },
    updateOverride: {
      get query() {
        return `mutation { updateOverride(input: { id: ${aRuleId}, reason: "b was here" }) { id reason note } }`;
      },
      refused: 'not_found',
      async check() {
        expect((await s.app.db.prisma.overrideRule.findUniqueOrThrow({ where: { id: aRuleId } })).reason).toContain(
          SECRET,
        );
      },
    },
    expireOverride: {
      get query() {
        return expireQuery();
      }, // A's rule id is known once beforeAll ran
      refused: 'not_found',
      async check() {
        expect((await s.app.db.prisma.overrideRule.findUniqueOrThrow({ where: { id: aRuleId } })).expiredAt).toBeNull();
      },
    },
    createWatch: {
      // the target A watches: a watch of B's own, which A's neither blocks nor shows through
      query: `mutation { createWatch(input: { target: "${A_IP}", note: "b own" }) { id note target } }`,
      check(a) {
        expect(a.body.data.createWatch, a.text).toMatchObject({ note: 'b own', target: A_IP });
        expect(a.body.data.createWatch.id).not.toBe(aWatchId);
      },
    },
    updateWatch: {
      get query() {
        return `mutation { updateWatch(input: { id: ${aWatchId}, note: "b was here" }) { id note } }`;
      },
      refused: 'not_found',
      async check() {
        expect((await s.app.db.prisma.watch.findUniqueOrThrow({ where: { id: aWatchId } })).note).toContain(SECRET);
      },
    },
    deleteWatch: {
      get query() {
        return `mutation { deleteWatch(id: ${aWatchId}) { id note } }`;
      },
      refused: 'not_found',
      async check() {
        expect(await s.app.db.prisma.watch.count({ where: { id: aWatchId } })).toBe(1);
      },
    },
    createWebhookEndpoint: {
      // B's own endpoint, created beside A's, which it neither counts against nor shows
      query:
        'mutation { createWebhookEndpoint(input: { url: "https://b-own.example/hook", eventTypes: ["watch.reported"] }) { secret endpoint { id description url } } }',
      check(a) {
        expect(a.body.data.createWebhookEndpoint.endpoint, a.text).toMatchObject({
          description: '',
          url: 'https://b-own.example/hook',
        });
        expect(a.body.data.createWebhookEndpoint.endpoint.id).not.toBe(aEndpointId);
      },
    },
    ...Object.fromEntries(
      [
        'updateWebhookEndpoint',
        'rotateWebhookEndpointSecret',
        'disableWebhookEndpoint',
        'enableWebhookEndpoint',
        'deleteWebhookEndpoint',
        'sendWebhookTestEvent',
      ].map((name) => [
        name,
        {
          get query() {
            const args =
              name === 'updateWebhookEndpoint'
                ? `input: { id: ${aEndpointId}, description: "b was here" }`
                : name === 'sendWebhookTestEvent'
                  ? `endpointId: ${aEndpointId}`
                  : `id: ${aEndpointId}`;
            return `mutation { ${name}(${args}) { __typename } }`;
          },
          refused: 'not_found',
          async check() {
            const e = await s.app.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: aEndpointId } });
            expect([e.status, e.description, e.secret, e.previousSecret]).toEqual([
              'disabled',
              `${SECRET} hook`,
              `whsec_${SECRET}`,
              null,
            ]);
            expect(await s.app.db.prisma.webhookDelivery.count({ where: { endpointId: aEndpointId } })).toBe(1);
          },
        },
      ]),
    ),
    resendWebhookDelivery: {
      get query() {
        return `mutation { resendWebhookDelivery(id: ${aDeliveryId}) { id } }`;
      },
      refused: 'not_found',
      async check() {
        expect(await s.app.db.prisma.webhookAttempt.count({ where: { deliveryId: aDeliveryId } })).toBe(1);
      },
    },
    rate: {
      query: `mutation { rate(input: { ip: "${C_IP}", rating: 1 }, idempotencyKey: "${IDEM}-rate") { rating { id databaseId rating note createdAt subject { key ratings(first: 5) { totalCount nodes { note } } } } } }`,
      check(a) {
        expect(a.body.data.rate.rating, a.text).toMatchObject({ rating: 1, subject: { key: C_IP } });
        expect(a.body.data.rate.rating.createdAt).not.toBe(aRatingCreatedAt);
      },
    },
    report: {
      query: `mutation { report(input: { kind: ipaddress, key: "${C_IP}", outcomeCode: legitimate }, idempotencyKey: "${IDEM}") { report { databaseId outcomeCode title subject { key reports(first: 5) { totalCount } mentions(first: 5) { totalCount } } } } }`,
      check(a) {
        expect(a.body.data.report.report.databaseId, a.text).not.toBe(aReportId);
        expect(a.body.data.report.report).toMatchObject({
          outcomeCode: 'legitimate',
          subject: { key: C_IP, mentions: { totalCount: 0 } },
        });
      },
    },
    reportBulk: {
      query: `mutation { reportBulk(reports: [{ kind: ipaddress, key: "${C_IP}", outcomeCode: spam }], idempotencyKeys: ["${IDEM}-bulk"]) { line status databaseId error } }`,
      check(a) {
        expect(a.body.data.reportBulk, a.text).toEqual([
          { line: 1, status: 'created', databaseId: expect.any(Number), error: null },
        ]);
        expect(a.body.data.reportBulk[0].databaseId).not.toBe(aReportId);
      },
    },
  };

  describe('GraphQL', () => {
    it('has a case for every root query and mutation field the running schema offers', () => {
      expect(Object.keys(schema.getQueryType()!.getFields()).sort()).toEqual(Object.keys(rootArgs).sort());
      expect(Object.keys(schema.getMutationType()?.getFields() ?? {}).sort()).toEqual(Object.keys(mutations).sort());
      expect(schema.getSubscriptionType()).toBeFalsy();
    });

    it('shows B nothing of A from any query field, walked five levels deep', async () => {
      const seen: string[] = [];
      for (const name of Object.keys(rootArgs)) {
        const a = await call(`${s.url}/graphql`, 'POST', { 'x-api-key': keyB }, { query: queryOf(name) });
        expect(a.text, `${name}: ${a.text.slice(0, 500)}`).not.toContain('"errors"');
        expect(a.text, `${name} leaked: ${a.text.slice(0, 2000)}`).not.toContain(SECRET);
        expect(a.text, `${name} leaked A's IP: ${a.text.slice(0, 2000)}`).not.toContain(A_IP);
        seen.push(a.text);
      }
      expect(seen.join('\n')).toContain('b-own.example');
      // A nested field with a required argument would not be walked: cover it here before allowing it.
      expect([...skippedNested]).toEqual([]);
    });

    it("keeps idempotency keys per workspace: B reusing A's key writes B's own record; B cannot change A's rules", async () => {
      for (const [name, m] of Object.entries(mutations)) {
        const a = await call(`${s.url}/graphql`, 'POST', { 'x-api-key': keyB }, { query: m.query });
        if (m.refused)
          expect(
            a.body.errors?.map((e: any) => e.extensions?.code),
            `${name}: ${a.text}`,
          ).toEqual([m.refused]);
        else expect(a.body.errors, `${name}: ${a.text}`).toBeUndefined();
        expect(a.text, `${name} leaked: ${a.text}`).not.toContain(SECRET);
        await m.check(a);
      }
    });
  });

  /** Every REST endpoint: `METHOD path` → a call with the given headers, and what B may see. */
  type RestCase = { call(headers: Record<string, string>): Promise<Answer>; public?: true; isolated?(a: Answer): void };
  const rest: Record<string, RestCase> = {
    'POST /risk_api/score': {
      call: (h) => call(`${s.url}/risk_api/score/`, 'POST', h, { ip: A_IP }),
      isolated(a) {
        expect(a.status, a.text).toBe(200);
        expect(a.body.workspace_memory).toEqual({
          ratings: { good: 0, neutral: 0, bad: 0 },
          last_rating: null,
          reports: 0,
        });
        if (a.body.override) expect(a.body.override.reason, a.text).toBe('b own'); // B's own rule, never A's
        for (const d of a.body.score.dimensions) {
          // A's contextual layer holds 8.8.4.4 and its /24; B's holds only what 8.8.8.8 rolls up into.
          if (d.code === 'ip' || d.code === 'subnet') expect(d.matched, JSON.stringify(d)).toBe(false);
          if (d.evidence) expect(d.evidence, JSON.stringify(d)).toMatchObject({ reports: 1, bad_ratings: 0 });
        }
      },
    },
    'POST /risk_api/score/batch': {
      call: (h) => call(`${s.url}/risk_api/score/batch/`, 'POST', h, { ips: [A_IP, B_IP] }),
      isolated(a) {
        expect(a.status, a.text).toBe(200);
        expect(a.body.results.map((r: { workspace_memory: unknown }) => r.workspace_memory)).toEqual([
          { ratings: { good: 0, neutral: 0, bad: 0 }, last_rating: null, reports: 0 }, // A rated and reported A_IP: none of it shows
          { ratings: { good: 0, neutral: 0, bad: 0 }, last_rating: null, reports: 1 },
        ]);
        expect(a.body.results[1].override, a.text).toBeNull(); // A's rule on the AS both IPs share is A's alone
      },
    },
    'POST /risk_api/check_block': {
      // A's private reports and ratings about 8.8.4.4 lie in this block: B sees only its own 8.8.8.8.
      call: (h) => call(`${s.url}/risk_api/check_block/`, 'POST', h, { cidr: '8.8.0.0/16' }),
      isolated(a) {
        expect(a.status, a.text).toBe(200);
        expect(a.body.ips.items.map((i: { ip: string }) => i.ip)).toEqual([B_IP]);
        expect(a.body.block).toMatchObject({ reports: 1, ratings: { good: 0, neutral: 0, bad: 0 } });
        expect(a.text).not.toContain(A_IP);
      },
    },
    'POST /risk_api/report/bulk': {
      // B reuses A's Idempotency-Key on a line: B's own write, never a replay of A's report.
      call: async (h) => {
        const res = await fetch(`${s.url}/risk_api/report/bulk/`, {
          method: 'POST',
          headers: { ...h, 'content-type': 'application/x-ndjson' },
          body: `${JSON.stringify({ kind: 'ipaddress', key: C_IP, outcome_code: 'spam', idempotency_key: `${IDEM}-bulk-rest` })}\n`,
        });
        const text = await res.text();
        return { status: res.status, text, body: JSON.parse(text), headers: res.headers };
      },
      isolated(a) {
        expect(a.status, a.text).toBe(200);
        expect(a.body.results).toEqual([{ line: 1, status: 'created', id: expect.any(Number) }]);
        expect(a.body.results[0].id).not.toBe(aReportId);
      },
    },
    'POST /risk_api/dimensions': {
      call: (h) => call(`${s.url}/risk_api/dimensions/`, 'POST', h, { ip: A_IP }),
      isolated(a) {
        expect(a.status, a.text).toBe(200);
        for (const d of a.body.dimensions) {
          if (d.code === 'ip' || d.code === 'subnet') expect(d.workspace, JSON.stringify(d)).toBeNull();
          if (d.workspace) expect(d.workspace.counts, JSON.stringify(d)).toMatchObject({ reports: 1, bad_ratings: 0 });
        }
      },
    },
    'POST /risk_api/rate': {
      call: (h) =>
        call(
          `${s.url}/risk_api/rate/`,
          'POST',
          { ...h, 'idempotency-key': `${IDEM}-rest-rate` },
          { ip: C_IP, rating: 0 },
        ),
      isolated(a) {
        expect(a.status, a.text).toBe(201); // a new write of B's, not a replay (200) of A's
        expect(a.headers.get('idempotent-replayed')).toBeNull();
        expect(a.body.report).toMatchObject({ ip: C_IP, rating: 0 });
      },
    },
    'POST /risk_api/report': {
      call: (h) =>
        call(
          `${s.url}/risk_api/report/`,
          'POST',
          { ...h, 'idempotency-key': `${IDEM}-rest` },
          { kind: 'ipaddress', key: C_IP, outcome_code: 'false_positive' },
        ),
      isolated(a) {
        expect(a.status, a.text).toBe(201);
        expect(a.body.report.id).not.toBe(aReportId);
        expect(a.body.report.outcome_code).toBe('false_positive');
      },
    },
    'GET /risk_api/blocklist': {
      // A's private reports and its deny rule name A_IP; B's list holds neither the IP nor A's /24 of it
      call: (h) => call(`${s.url}/risk_api/blocklist/?min_score=10&format=json`, 'GET', h),
      isolated(a) {
        expect(a.status, a.text).toBe(200);
        expect(a.body.endpoint, a.text).toBe('blocklist');
        expect(a.text).not.toContain(A_IP);
        expect(a.text).not.toContain('8.8.4.0/24');
      },
    },
    'GET /risk_api/export': {
      call: (h) => call(`${s.url}/risk_api/export/?format=csv`, 'GET', h),
      isolated(a) {
        expect(a.status, a.text).toBe(200);
        expect(a.text).toContain('b-own.example');
      },
    },
    'POST /risk_api/export': {
      call: (h) => call(`${s.url}/risk_api/export/`, 'POST', h, { limit: 1000 }),
      isolated(a) {
        expect(a.status, a.text).toBe(200);
        expect(a.text).toContain('b-own.example');
      },
    },
    'POST /risk_api/overrides': {
      // A's /24 of A_IP: B's own rule, whatever A holds
      call: (h) =>
        call(`${s.url}/risk_api/overrides/`, 'POST', h, {
          target: '8.8.4.0/24',
          action: 'adjust',
          points: -5,
          reason: 'b block',
        }),
      isolated(a) {
        expect(a.status, a.text).toBe(201);
        expect(a.body.rule).toMatchObject({ target: '8.8.4.0/24', reason: 'b block' });
      },
    },
    'POST /risk_api/overrides/list': {
      call: (h) => call(`${s.url}/risk_api/overrides/list/`, 'POST', h, { state: 'all' }),
      isolated(a) {
        expect(a.status, a.text).toBe(200);
        expect(a.body.rules.length).toBeGreaterThan(0); // B's own are there
        expect(a.body.rules.map((r: { id: number }) => r.id)).not.toContain(aRuleId);
      },
    },
    'POST /risk_api/overrides/expire': {
      call: (h) => call(`${s.url}/risk_api/overrides/expire/`, 'POST', h, { id: aRuleId }),
      isolated(a) {
        expect([a.status, a.body.error], a.text).toEqual([404, 'not_found']);
      },
    },
    'POST /risk_api/overrides/update': {
      call: (h) => call(`${s.url}/risk_api/overrides/update/`, 'POST', h, { id: aRuleId, note: 'b was here' }),
      isolated(a) {
        expect([a.status, a.body.error], a.text).toEqual([404, 'not_found']);
      },
    },
    'POST /risk_api/overrides/audit': {
      call: (h) => call(`${s.url}/risk_api/overrides/audit/`, 'POST', h, {}),
      isolated(a) {
        expect(a.status, a.text).toBe(200);
        const lines = a.text
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { rule_id: number });
        expect(lines.length).toBeGreaterThan(0);
        expect(lines.map((l) => l.rule_id)).not.toContain(aRuleId);
      },
    },
    'POST /risk_api/watches': {
      // A's /24 of A_IP: B's own watch, whatever A holds
      call: (h) => call(`${s.url}/risk_api/watches/`, 'POST', h, { target: '8.8.4.0/24', note: 'b block' }),
      isolated(a) {
        expect(a.status, a.text).toBe(201);
        expect(a.body.watch).toMatchObject({ target: '8.8.4.0/24', note: 'b block' });
      },
    },
    'POST /risk_api/watches/list': {
      call: (h) => call(`${s.url}/risk_api/watches/list/`, 'POST', h, { limit: 100 }),
      isolated(a) {
        expect(a.status, a.text).toBe(200);
        expect(a.body.watches.length).toBeGreaterThan(0); // B's own are there
        expect(a.body.watches.map((w: { id: number }) => w.id)).not.toContain(aWatchId);
      },
    },
    'POST /risk_api/watches/update': {
      call: (h) => call(`${s.url}/risk_api/watches/update/`, 'POST', h, { id: aWatchId, note: 'b was here' }),
      isolated(a) {
        expect([a.status, a.body.error], a.text).toEqual([404, 'not_found']);
      },
    },
    'POST /risk_api/watches/delete': {
      call: (h) => call(`${s.url}/risk_api/watches/delete/`, 'POST', h, { id: aWatchId }),
      isolated(a) {
        expect([a.status, a.body.error], a.text).toEqual([404, 'not_found']);
      },
    },
    'GET /risk_api/openapi.json': { call: (h) => call(`${s.url}/risk_api/openapi.json`, 'GET', h), public: true },
  };

  describe('REST', () => {
    it("has a case for every endpoint: the OpenAPI paths, the router's paths, every method each allows", async () => {
      const doc = (await call(`${s.url}/risk_api/openapi.json`, 'GET', {})).body;
      const routerSource = readFileSync(path.join(ROOT, 'src/transport/rest/router.ts'), 'utf8');
      const paths = new Set(
        [
          ...Object.keys(doc.paths).filter((p) => p.startsWith('/risk_api/')),
          ...[...routerSource.matchAll(/'(\/risk_api\/[^']+)':\s*\{/g)].map((m) => m[1]!),
        ].map((p) => p.replace(/\/$/, '')),
      );
      const endpoints: string[] = [];
      for (const p of paths) {
        const probe = await call(`${s.url}${p}/`, 'DELETE', { 'x-api-key': keyB });
        expect(probe.status, `${p}: ${probe.text}`).toBe(405);
        for (const method of probe.headers
          .get('allow')!
          .split(',')
          .map((m) => m.trim()))
          endpoints.push(`${method} ${p}`);
      }
      expect(endpoints.sort()).toEqual(Object.keys(rest).sort());
    });

    it('shows B nothing of A from any endpoint', async () => {
      for (const [name, c] of Object.entries(rest)) {
        const a = await c.call({ 'x-api-key': keyB });
        expect(a.text, `${name} leaked: ${a.text.slice(0, 2000)}`).not.toContain(SECRET);
        c.isolated?.(a);
      }
    });
  });

  describe('control plane', () => {
    /** Every page; the revoke page with one of A's prefixes. */
    const pages = () =>
      [
        ['GET', '/workspace'],
        ['GET', '/workspace/keys'],
        ['POST', '/workspace/keys'],
        ['GET', '/workspace/subscription'],
        ['POST', '/workspace/subscription'],
        ['POST', '/workspace/subscription/resend'],
        ['GET', '/workspace/usage'],
        ['GET', '/workspace/model'],
        ['GET', `/workspace/keys/${aPrefixes[0]}/revoke`],
        ['POST', `/workspace/keys/${aPrefixes[0]}/revoke`],
        ['GET', `/workspace/reports/ip/${A_IP}`],
        ['GET', '/workspace/reports/subnet/8.8.4.0%2F24'],
        ['GET', '/workspace/reports/asn/AS15169'],
        ['POST', `/workspace/reports/ip/${A_IP}`],
        ['POST', '/workspace/subscription/confirm-email'],
        ['GET', '/workspace/register'],
        ['POST', '/workspace/register'],
        ['GET', '/workspace/confirm'],
        ['POST', '/workspace/confirm'],
        ['GET', '/workspace/sign-in'],
        ['POST', '/workspace/sign-in'],
        ['POST', '/workspace/sign-out'],
        ['GET', '/workspace/assets/app.js'],
        ['POST', '/workspace/graphql'],
        ['GET', '/workspace/overrides'],
        ['POST', '/workspace/overrides'],
        ['POST', '/workspace/overrides/expire'],
        ['GET', '/workspace/overrides/audit.ndjson'],
        ['GET', '/workspace/watches'],
        ['POST', '/workspace/watches'],
        ['POST', '/workspace/watches/delete'],
        ['GET', '/workspace/webhooks'],
        ['POST', '/workspace/webhooks'],
        ['GET', '/workspace/webhooks/edit'],
        ['POST', '/workspace/webhooks/edit'],
        ['GET', '/workspace/webhooks/deliveries'],
        ['POST', '/workspace/webhooks/deliveries/resend'],
        ...(['test', 'rotate', 'disable', 'enable', 'delete'] as const).map(
          (a) => ['POST', `/workspace/webhooks/${a}`] as const,
        ),
      ] as const;

    it('lists every page the control plane routes (a new page must be added here)', () => {
      const source = readFileSync(path.join(ROOT, 'src/transport/web/control-plane.ts'), 'utf8');
      const literal = new Set(
        [...source.matchAll(/'(\/workspace[^'/]*(?:\/[^'/]+)*)'/g)].map((m) => m[1]!.replace(/\/$/, '')),
      );
      const listed = new Set<string>(pages().map(([, p]) => p));
      expect([...literal].filter((p) => !listed.has(p))).toEqual([]);
    });

    it("shows B's session none of A's keys, pages or evidence, and will not revoke A's key", async () => {
      const keys = await ub.request('/workspace/keys');
      expect(keys.status).toBe(200);
      for (const prefix of aPrefixes) expect(keys.text).not.toContain(prefix);
      expect(keys.text).not.toContain(SECRET);
      const token = await ub.csrfOf('/workspace/keys');
      const revoke = await ub.request(`/workspace/keys/${aPrefixes[0]}/revoke`, { form: { _csrf: token } });
      expect(revoke.status, revoke.text).toBe(404);
      expect(
        (await s.app.db.prisma.apiKey.findUniqueOrThrow({ where: { prefix: aPrefixes[0]! } })).revokedAt,
      ).toBeNull();
      const reports = [
        `/workspace/reports/ip/${A_IP}`,
        '/workspace/reports/subnet/8.8.4.0%2F24',
        '/workspace/reports/asn/AS15169',
      ];
      // A report page shows its content to the confirm POST; its GET shows only the button. Both are checked.
      const views: Array<[string, 'GET' | 'POST']> = [
        ...[
          ...reports,
          '/workspace/usage',
          '/workspace/model',
          '/workspace/subscription',
          '/workspace/overrides',
          '/workspace/overrides/audit.ndjson',
          '/workspace/watches',
          '/workspace/webhooks',
          `/workspace/webhooks/deliveries?endpoint=${aEndpointId}`,
        ].map((p) => [p, 'GET'] as [string, 'GET']),
        ...reports.map((p) => [p, 'POST'] as [string, 'POST']),
      ];
      for (const [page, method] of views) {
        const r = method === 'POST' ? await ub.request(page, { form: { _csrf: token } }) : await ub.request(page);
        expect(r.status, `${method} ${page}: ${r.text.slice(0, 300)}`).toBe(200);
        expect(r.text, `${method} ${page} leaked`).not.toContain(SECRET);
      }
    });

    it("shows B's session none of A's override rules or their trail, and will not expire A's rule by form or /workspace/graphql", async () => {
      const token = await ub.csrfOf('/workspace/overrides');
      const byForm = await ub.request('/workspace/overrides/expire', { form: { _csrf: token, id: String(aRuleId) } });
      expect(byForm.status, byForm.text).toBe(404);
      expect(byForm.text).not.toContain(SECRET);
      const gql = (query: string) =>
        call(
          `${s.url}/workspace/graphql`,
          'POST',
          { cookie: `rk_session=${ub.cookies.get('rk_session')}`, 'x-csrf-token': token },
          { query },
        );
      const expire = await gql(`mutation { expireOverride(id: ${aRuleId}) { id reason } }`);
      expect(expire.body.errors?.[0]?.extensions?.code, expire.text).toBe('not_found');
      const update = await gql(`mutation { updateOverride(input: { id: ${aRuleId}, reason: "b was here" }) { id } }`);
      expect(update.body.errors?.[0]?.extensions?.code, update.text).toBe('not_found');
      const read = await gql(
        '{ overrides(state: all, first: 100) { nodes { id reason note } } overrideAudit(first: 100) { nodes { ruleId before { reason } after { reason note } } } }',
      );
      expect(read.text).not.toContain(SECRET);
      expect(read.body.data.overrides.nodes.map((r: { id: number }) => r.id)).not.toContain(aRuleId);
      expect(read.body.data.overrideAudit.nodes.map((e: { ruleId: number }) => e.ruleId)).not.toContain(aRuleId);
      const rule = await s.app.db.prisma.overrideRule.findUniqueOrThrow({ where: { id: aRuleId } });
      expect([rule.expiredAt, rule.reason]).toEqual([null, `${SECRET} reason`]);
    });

    it("shows B's session none of A's watches, and will not delete or change one by form or /workspace/graphql", async () => {
      const token = await ub.csrfOf('/workspace/watches');
      const byForm = await ub.request('/workspace/watches/delete', { form: { _csrf: token, id: String(aWatchId) } });
      expect(byForm.status, byForm.text).toBe(404);
      expect(byForm.text).not.toContain(SECRET);
      const gql = (query: string) =>
        call(
          `${s.url}/workspace/graphql`,
          'POST',
          { cookie: `rk_session=${ub.cookies.get('rk_session')}`, 'x-csrf-token': token },
          { query },
        );
      for (const query of [
        `mutation { deleteWatch(id: ${aWatchId}) { id note } }`,
        `mutation { updateWatch(input: { id: ${aWatchId}, note: "b was here" }) { id } }`,
      ]) {
        const r = await gql(query);
        expect(r.body.errors?.[0]?.extensions?.code, r.text).toBe('not_found');
      }
      const read = await gql('{ watches(first: 100) { nodes { id target note } } }');
      expect(read.text).not.toContain(SECRET);
      expect(read.body.data.watches.nodes.map((w: { id: number }) => w.id)).not.toContain(aWatchId);
      expect((await s.app.db.prisma.watch.findUniqueOrThrow({ where: { id: aWatchId } })).note).toBe(`${SECRET} watch`);
    });

    it("shows B's session none of A's webhook endpoints or deliveries, and will not change or send them by form or /workspace/graphql", async () => {
      const token = await ub.csrfOf('/workspace/webhooks');
      for (const a of ['test', 'rotate', 'disable', 'enable', 'delete']) {
        const byForm = await ub.request(`/workspace/webhooks/${a}`, {
          form: { _csrf: token, id: String(aEndpointId) },
        });
        expect(byForm.status, `${a}: ${byForm.text.slice(0, 300)}`).toBe(404);
        expect(byForm.text).not.toContain(SECRET);
      }
      const editForm = await ub.request(`/workspace/webhooks/edit?id=${aEndpointId}`);
      expect([editForm.status, editForm.text.includes(SECRET)]).toEqual([404, false]);
      const edited = await ub.request('/workspace/webhooks/edit', {
        form: {
          _csrf: token,
          id: String(aEndpointId),
          url: 'https://b.example/x',
          event_types: 'watch.reported',
          description: 'b',
        },
      });
      expect(edited.status).toBe(404);
      const resend = await ub.request('/workspace/webhooks/deliveries/resend', {
        form: { _csrf: token, id: String(aDeliveryId) },
      });
      expect(resend.status).toBe(404);
      const gql = (query: string) =>
        call(
          `${s.url}/workspace/graphql`,
          'POST',
          { cookie: `rk_session=${ub.cookies.get('rk_session')}`, 'x-csrf-token': token },
          { query },
        );
      for (const m of [
        `rotateWebhookEndpointSecret(id: ${aEndpointId})`,
        `enableWebhookEndpoint(id: ${aEndpointId})`,
        `deleteWebhookEndpoint(id: ${aEndpointId})`,
        `sendWebhookTestEvent(endpointId: ${aEndpointId})`,
        `resendWebhookDelivery(id: ${aDeliveryId})`,
        `updateWebhookEndpoint(input: { id: ${aEndpointId}, description: "b" })`,
      ]) {
        const r = await gql(`mutation { ${m} { __typename } }`);
        expect(r.body.errors?.[0]?.extensions?.code, r.text).toBe('not_found');
      }
      const read = await gql(
        `{ webhookEndpoints(first: 100) { nodes { id url description disabledReason } } webhookDeliveries(first: 100, endpointId: ${aEndpointId}) { nodes { id eventId attempts { error responseExcerpt } } } }`,
      );
      expect(read.text).not.toContain(SECRET);
      expect(read.body.data.webhookDeliveries.nodes).toEqual([]);
      const e = await s.app.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: aEndpointId } });
      expect([e.status, e.secret]).toEqual(['disabled', `whsec_${SECRET}`]);
      expect(await s.app.db.prisma.webhookAttempt.count({ where: { deliveryId: aDeliveryId } })).toBe(1);
    });

    it('refuses API keys on every page, with or without a session', async () => {
      for (const [method, p] of pages()) {
        for (const auth of [{ 'x-api-key': keyA }, { authorization: `Bearer ${keyA}` }] as Array<
          Record<string, string>
        >) {
          const r = await ua.request(p, { method, headers: auth });
          expect(r.status, `${method} ${p}: ${r.text.slice(0, 200)}`).toBe(401);
          const anonymous = await call(`${s.url}${p}`, method, auth);
          expect(anonymous.status, `${method} ${p} without session`).toBe(401);
        }
      }
    });
  });

  it('the API refuses a session: every endpoint and root field answers missing_api_key to a cookie', async () => {
    const cookie = { cookie: [...ua.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
    expect(cookie.cookie).toContain('rk_session=');
    for (const [name, c] of Object.entries(rest)) {
      const a = await c.call(cookie);
      if (c.public) {
        expect(a.status).toBe(200);
        continue;
      }
      expect([a.status, a.body.error], `${name}: ${a.text.slice(0, 300)}`).toEqual([401, 'missing_api_key']);
    }
    const operations = [...Object.keys(rootArgs).map(queryOf), ...Object.values(mutations).map((m) => m.query)];
    for (const query of operations) {
      const a = await call(`${s.url}/graphql`, 'POST', cookie, { query });
      expect(a.text, query.slice(0, 80)).not.toContain(SECRET);
      expect(
        a.body.errors?.map((e: any) => e.extensions?.code),
        `${query.slice(0, 80)}: ${a.text.slice(0, 300)}`,
      ).toContain('missing_api_key');
      expect(
        a.body.data === null || Object.values(a.body.data ?? {}).every((v) => v === null),
        a.text.slice(0, 300),
      ).toBe(true);
    }
  });

  it(`refuses a revoked key on every endpoint and root field within KEY_CACHE_TTL_MS (${TTL_MS} ms)`, async () => {
    const auth = { 'x-api-key': keyRevoked };
    const operations = [...Object.keys(rootArgs).map(queryOf), ...Object.values(mutations).map((m) => m.query)];
    // In use everywhere (so every process-level cache holds it)...
    for (const [name, c] of Object.entries(rest)) expect((await c.call(auth)).status, name).not.toBe(401);
    expect(
      (await call(`${s.url}/graphql`, 'POST', auth, { query: '{ viewer { apiKey { prefix } } }' })).body.data.viewer
        .apiKey.prefix,
    ).toBe(revokedPrefix);
    // ...then revoked in the database only, as another process or the CLI without Redis would: no local invalidation.
    await revokeApiKey(s.app.db.prisma, revokedPrefix);
    const revokedAt = Date.now(); // the bound runs from the revocation's commit
    await new Promise((r) => setTimeout(r, TTL_MS - (Date.now() - revokedAt) + 50));
    for (const [name, c] of Object.entries(rest)) {
      const a = await c.call(auth);
      if (c.public) continue;
      expect([a.status, a.body.error], `${name}: ${a.text.slice(0, 300)}`).toEqual([401, 'invalid_api_key']);
    }
    for (const query of operations) {
      const a = await call(`${s.url}/graphql`, 'POST', auth, { query });
      expect(
        [a.status, a.body.errors?.[0]?.extensions?.code],
        `${query.slice(0, 80)}: ${a.text.slice(0, 300)}`,
      ).toEqual([401, 'invalid_api_key']);
    }
  });
});
