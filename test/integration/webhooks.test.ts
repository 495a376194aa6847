/**
 * Outbound webhooks (docs/webhooks.md) on GraphQL for API keys, delivered to a real receiver on 127.0.0.1 (allowed
 * through WEBHOOK_ALLOWED_HOSTS) that verifies every signature: endpoint management and its coded refusals, signed
 * delivery, retries across an outage with the per-endpoint order kept, rotation's two signatures, the refusals of
 * the address guard at delivery time, disabling after 3 days of failures (failingSince set back, no waiting) with
 * the e-mail, re-send and test events, and another workspace neither seeing nor changing any of it; on both backends.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GraphQLClient, gql, ClientError } from 'graphql-request';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { startReceiver, until, type Receiver } from '../helpers/webhook-receiver.ts';
import { emitWebhookEvent } from '../../src/domain/webhooks/emit.ts';
import type { WebhookEventType } from '../../src/domain/webhooks/event-types.ts';
import { WebhookDeliverer } from '../../src/domain/webhooks/deliverer.ts';
import { sweepWebhookHistory } from '../../src/domain/webhooks/retention.ts';

const ENDPOINT_FIELDS =
  'id url eventTypes description status disabledReason failingSince previousSecretValidUntil createdAt';
const DELIVERY_FIELDS =
  'id eventId eventType endpointId status attemptCount deliveredAt attempts { id httpStatus error responseExcerpt latencyMs manual startedAt }';

describe(`outbound webhooks (${backendName})`, () => {
  let s: TestServer;
  let rx: Receiver;
  let gqlA: GraphQLClient;
  let gqlB: GraphQLClient;
  let workspaceA: number;

  beforeAll(async () => {
    rx = await startReceiver();
    s = await startTestServer({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
    const keyA = await s.createKey('hooks-a', { tier: 'enterprise' });
    const keyB = await s.createKey('hooks-b', { tier: 'enterprise' });
    gqlA = new GraphQLClient(`${s.url}/graphql`, { headers: { 'x-api-key': keyA.secret } });
    gqlB = new GraphQLClient(`${s.url}/graphql`, { headers: { 'x-api-key': keyB.secret } });
    workspaceA = (await s.app.db.prisma.workspace.findUniqueOrThrow({ where: { name: 'hooks-a' } })).id;
  });
  afterAll(async () => {
    await s?.close();
    await rx?.close();
  });
  beforeEach(() => {
    rx.mode = { kind: 'ok' };
  });
  afterEach(async () => {
    for (const e of await s.app.db.prisma.webhookEndpoint.findMany({ where: { workspaceId: workspaceA } }))
      await s.app.db.prisma.webhookEndpoint.delete({ where: { id: e.id } });
  });

  const prisma = () => s.app.db.prisma;
  const codeOf = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      if (e instanceof ClientError)
        return {
          code: e.response.errors?.[0]?.extensions?.code,
          details: (e.response.errors?.[0]?.extensions as any)?.details,
        };
      throw e;
    }
    throw new Error('expected a refusal');
  };
  const create = async (input: object, client = gqlA) => {
    const r = await client.request<any>(
      gql`mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret endpoint { ${ENDPOINT_FIELDS} } } }`,
      { input },
    );
    rx.secrets.add(r.createWebhookEndpoint.secret);
    return r.createWebhookEndpoint as { secret: string; endpoint: { id: number; status: string } };
  };
  const emit = (type: WebhookEventType, data: object, workspaceId = workspaceA) =>
    prisma().$transaction((tx) => emitWebhookEvent(tx, { workspaceId, type, data: data as never }));
  const deliveries = async (endpointId: number, client = gqlA) =>
    (
      await client.request<any>(
        gql`query($e: Int) { webhookDeliveries(endpointId: $e, first: 20) { nodes { ${DELIVERY_FIELDS} } } }`,
        { e: endpointId },
      )
    ).webhookDeliveries.nodes as any[];
  const round = () => s.app.services.webhooks.deliverDue();
  /** Every pending delivery of the endpoint due now (the backoff skipped: no test waits for it). */
  const dueNow = (endpointId: number) =>
    prisma().webhookDelivery.updateMany({
      where: { endpointId, status: 'pending' },
      data: { nextAttemptAt: new Date() },
    });
  const receivedOf = (eventId: string) => rx.received.filter((r) => r.json?.id === eventId);
  const deleteAll = async () => {
    for (const e of await prisma().webhookEndpoint.findMany({ where: { workspaceId: workspaceA } }))
      await prisma().webhookEndpoint.delete({ where: { id: e.id } });
  };

  it('creates an endpoint, shows its secret once, and delivers a signed event the receiver verifies', async () => {
    const { secret, endpoint } = await create({
      url: rx.url,
      eventTypes: ['watch.level_changed', 'watch.score_crossed'],
      description: 'ops',
    });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(endpoint).toMatchObject({ status: 'enabled', description: 'ops', url: rx.url });
    const listed = await gqlA.request<any>(gql`{ webhookEndpoints { nodes { ${ENDPOINT_FIELDS} } nextCursor } }`);
    expect(listed.webhookEndpoints.nodes.map((e: any) => e.id)).toContain(endpoint.id);
    expect(JSON.stringify(listed)).not.toContain(secret);
    expect((await codeOf(gqlA.request(gql`{ webhookEndpoints { nodes { secret } } }`))).code).toBe(
      'GRAPHQL_VALIDATION_FAILED',
    );

    const eventId = await emit('watch.level_changed', { target: '198.51.100.7', from: 'low', to: 'high' });
    expect(eventId).toMatch(/^evt_/);
    expect(await emit('key.new_country', { country: 'NL' })).toBeNull(); // no endpoint wants it: nothing stored
    s.app.services.webhooks.wake();
    const [got] = await until(
      async () => receivedOf(eventId!),
      (r) => r.length > 0,
    );
    expect(got!.verifiedWith).toEqual([secret]);
    expect(got!.json).toEqual({
      id: eventId,
      type: 'watch.level_changed',
      created: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      data: { target: '198.51.100.7', from: 'low', to: 'high' },
    });
    expect(got!.headers).toMatchObject({
      'risk-event-id': eventId,
      'risk-event-type': 'watch.level_changed',
      'content-type': 'application/json',
    });
    expect(got!.headers['user-agent']).toMatch(/^risk-api-webhooks\//);
    expect(got!.headers['risk-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const [d] = await until(
      () => deliveries(endpoint.id),
      (l) => l[0]?.status === 'delivered',
    );
    expect(d).toMatchObject({ eventId, eventType: 'watch.level_changed', status: 'delivered', attemptCount: 1 });
    expect(d.attempts).toEqual([
      expect.objectContaining({ httpStatus: 200, error: null, responseExcerpt: 'thanks', manual: false }),
    ]);
  });

  it('refuses bad endpoints with coded field errors and changes nothing', async () => {
    const before = await prisma().webhookEndpoint.count();
    const refused = async (input: object, field: string) => {
      const r = await codeOf(create(input));
      expect(r.code).toBe('invalid_request');
      expect(r.details.map((d: any) => d.field)).toContain(field);
    };
    await refused({ url: 'http://example.com/hook', eventTypes: ['watch.reported'] }, 'url');
    await refused({ url: 'https://10.1.2.3/hook', eventTypes: ['watch.reported'] }, 'url');
    await refused({ url: 'https://[::ffff:127.0.0.1]/hook', eventTypes: ['watch.reported'] }, 'url');
    await refused({ url: 'https://localhost/hook', eventTypes: ['watch.reported'] }, 'url');
    await refused({ url: 'https://user:pw@example.com/hook', eventTypes: ['watch.reported'] }, 'url');
    await refused({ url: 'ftp://example.com/', eventTypes: ['watch.reported'] }, 'url');
    await refused({ url: 'https://example.com/hook', eventTypes: [] }, 'eventTypes');
    await refused({ url: 'https://example.com/hook', eventTypes: ['watch.nope'] }, 'eventTypes[0]');
    await refused(
      { url: 'https://example.com/hook', eventTypes: ['watch.reported'], description: 'x'.repeat(501) },
      'description',
    );
    expect(await prisma().webhookEndpoint.count()).toBe(before);
    // the cap: 16 per workspace
    for (let i = 0; i < 16; i++) await create({ url: `https://example.com/hook/${i}`, eventTypes: ['watch.reported'] });
    expect((await codeOf(create({ url: 'https://example.com/hook/17', eventTypes: ['watch.reported'] }))).code).toBe(
      'webhook_endpoint_limit_reached',
    );
    expect(await prisma().webhookEndpoint.count({ where: { workspaceId: workspaceA } })).toBe(16);
  });

  it('retries across an outage (503, then down) with backoff, keeps the per-endpoint order, and records each attempt', async () => {
    const { endpoint } = await create({ url: rx.url, eventTypes: ['watch.score_crossed'] });
    rx.mode = { kind: 'status', status: 503, body: 'maintenance' };
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await emit('watch.score_crossed', { n: i }));
    await round();
    await until(
      async () => (await deliveries(endpoint.id)).flatMap((d) => d.attempts),
      (a) => a.length >= 1,
    );
    let list = await deliveries(endpoint.id);
    // only the oldest was tried; the later ones wait behind it
    expect(list.map((d) => d.attemptCount)).toEqual([0, 0, 1]);
    const first = list[2]!;
    expect(first.attempts[0]).toMatchObject({
      httpStatus: 503,
      error: 'HTTP 503',
      responseExcerpt: 'maintenance',
      manual: false,
    });
    const row = await prisma().webhookDelivery.findUniqueOrThrow({ where: { id: first.id } });
    expect(row.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 5_000); // backed off (10 s for the first retry)
    expect(
      (await prisma().webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).failingSince,
    ).not.toBeNull();

    // the receiver goes down: a refused connection is an attempt too
    const port = rx.port;
    await rx.close();
    await dueNow(endpoint.id);
    await round();
    list = await until(
      () => deliveries(endpoint.id),
      (l) => l[2].attemptCount >= 2,
    );
    expect(list[2].attempts[0]).toMatchObject({ httpStatus: null, error: expect.stringMatching(/ECONNREFUSED/) });
    expect(list[1].attemptCount).toBe(0);

    // back up (on the same port): everything is delivered, in order, and the failure run ends
    const back = await startReceiverOn(port);
    back.secrets.clear();
    for (const x of rx.secrets) back.secrets.add(x);
    rx = back;
    await dueNow(endpoint.id);
    list = await until(
      async () => {
        await round();
        return deliveries(endpoint.id);
      },
      (l) => l.every((d) => d.status === 'delivered'),
    );
    expect(rx.received.map((r) => r.json.id)).toEqual(ids);
    expect(rx.received.every((r) => r.verifiedWith.length === 1)).toBe(true);
    expect(list[2].attempts.map((a: any) => a.httpStatus)).toEqual([200, null, 503]);
    expect((await prisma().webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).failingSince).toBeNull();
  });

  it('three delivery loops racing over one outbox send each event once, in order per endpoint', async () => {
    const one = await create({ url: `${rx.url}/one`, eventTypes: ['watch.reported'] });
    const two = await create({ url: `${rx.url}/two`, eventTypes: ['watch.reported'] });
    const loops = [
      s.app.services.webhooks,
      new WebhookDeliverer(s.app.services.webhooks.deps),
      new WebhookDeliverer(s.app.services.webhooks.deps),
    ];
    const ids: string[] = [];
    for (let n = 0; n < 12; n++) ids.push((await emit('watch.reported', { n }))!);
    const pending = () =>
      prisma().webhookDelivery.count({
        where: { endpointId: { in: [one.endpoint.id, two.endpoint.id] }, status: 'pending' },
      });
    await until(
      async () => {
        await Promise.all(loops.map((l) => l.deliverDue()));
        return pending();
      },
      (n) => n === 0,
      0,
    );
    await Promise.all(loops.slice(1).map((l) => l.stop()));
    for (const path of ['/hooks/one', '/hooks/two']) {
      const got = rx.received.filter((r) => r.url === path && ids.includes(r.json?.id)).map((r) => r.json.id);
      expect(got, path).toEqual(ids);
    }
    const attempts = await prisma().webhookAttempt.count({
      where: { delivery: { endpointId: { in: [one.endpoint.id, two.endpoint.id] } } },
    });
    expect(attempts).toBe(24);
  });

  it('after a rotation signs with the new and the old secret for 24 h', async () => {
    const { secret: old, endpoint } = await create({ url: rx.url, eventTypes: ['watch.reported'] });
    const r = await gqlA.request<any>(
      gql`mutation($id: Int!) { rotateWebhookEndpointSecret(id: $id) { secret endpoint { previousSecretValidUntil } } }`,
      { id: endpoint.id },
    );
    const fresh = r.rotateWebhookEndpointSecret.secret;
    expect(fresh).not.toBe(old);
    rx.secrets.add(fresh);
    const until24h = new Date(r.rotateWebhookEndpointSecret.endpoint.previousSecretValidUntil).getTime() - Date.now();
    expect(until24h).toBeGreaterThan(23 * 3_600_000);
    expect(until24h).toBeLessThanOrEqual(24 * 3_600_000);
    const eventId = await emit('watch.reported', { subject: 'domain:example.com' });
    const [got] = await until(
      async () => {
        await round();
        return receivedOf(eventId!);
      },
      (l) => l.length > 0,
    );
    expect(got!.headers['risk-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(new Set(got!.verifiedWith)).toEqual(new Set([old, fresh]));
    // past the 24 h, the old one no longer signs
    await prisma().webhookEndpoint.update({
      where: { id: endpoint.id },
      data: { previousSecretUntil: new Date(Date.now() - 1000) },
    });
    const later = await emit('watch.reported', { subject: 'domain:example.org' });
    const [got2] = await until(
      async () => {
        await round();
        return receivedOf(later!);
      },
      (l) => l.length > 0,
    );
    expect(got2!.verifiedWith).toEqual([fresh]);
  });

  it('at delivery time refuses an address outside the allow list, does not follow redirects, and keeps at most 1 KB of a response', async () => {
    const { endpoint } = await create({ url: rx.url, eventTypes: ['watch.reported'] });
    // 127.0.0.2 is loopback and not allowed: set straight in the database, as a name resolving there would arrive
    await prisma().webhookEndpoint.update({
      where: { id: endpoint.id },
      data: { url: rx.url.replace('127.0.0.1', '127.0.0.2') },
    });
    const blocked = await emit('watch.reported', { n: 1 });
    let [d] = await until(
      async () => {
        await round();
        return deliveries(endpoint.id);
      },
      (l) => l[0]?.attemptCount >= 1,
    );
    expect(d.attempts[0]).toMatchObject({
      httpStatus: null,
      error: expect.stringMatching(/^refused: 127\.0\.0\.2 is a private, loopback/),
    });
    expect(receivedOf(blocked!)).toEqual([]);
    await deleteAll();

    const { endpoint: e2 } = await create({ url: rx.url, eventTypes: ['watch.reported'] });
    rx.mode = { kind: 'status', status: 302 };
    await emit('watch.reported', { n: 2 });
    [d] = await until(
      async () => {
        await round();
        return deliveries(e2.id);
      },
      (l) => l[0]?.attemptCount >= 1,
    );
    expect(d).toMatchObject({ status: 'pending' });
    expect(d.attempts[0]).toMatchObject({ httpStatus: 302, error: 'redirect (302) not followed' });
    await deleteAll();

    const { endpoint: e3 } = await create({ url: rx.url, eventTypes: ['watch.reported'] });
    rx.mode = { kind: 'status', status: 200, body: 'é'.repeat(5000) };
    await emit('watch.reported', { n: 3 });
    [d] = await until(
      async () => {
        await round();
        return deliveries(e3.id);
      },
      (l) => l[0]?.status === 'delivered',
    );
    expect(Buffer.byteLength(d.attempts[0].responseExcerpt)).toBeLessThanOrEqual(1024);
    expect(d.attempts[0].responseExcerpt).toMatch(/^é+$/);
  });

  it('disables an endpoint failing for 3 days, gives up its deliveries and e-mails the workspace; re-send and enable bring it back', async () => {
    await prisma().account.create({
      data: { workspaceId: workspaceA, email: 'owner-a@example.com', emailVerifiedAt: new Date() },
    });
    await prisma().account.create({ data: { workspaceId: workspaceA, email: 'unconfirmed-a@example.com' } });
    const { endpoint } = await create({ url: rx.url, eventTypes: ['watch.spike_started'] });
    rx.mode = { kind: 'status', status: 500 };
    const first = await emit('watch.spike_started', { n: 1 });
    await emit('watch.spike_started', { n: 2 });
    await until(
      async () => {
        await round();
        return deliveries(endpoint.id);
      },
      (l) => l[1]?.attemptCount >= 1,
    );
    // not yet 3 days: still enabled
    expect((await prisma().webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).status).toBe('enabled');
    await prisma().webhookEndpoint.update({
      where: { id: endpoint.id },
      data: { failingSince: new Date(Date.now() - 3 * 86_400_000 - 60_000) },
    });
    await dueNow(endpoint.id);
    await round();
    const disabled = await until(
      () => prisma().webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } }),
      (e) => e.status === 'disabled',
    );
    expect(disabled.disabledReason).toMatch(/^Disabled automatically: deliveries failed since .* Last error: HTTP 500/);
    const list = await deliveries(endpoint.id);
    expect(list.map((d) => d.status)).toEqual(['failed', 'failed']);
    const mail = await prisma().mailOutbox.findMany({ where: { subject: { contains: `endpoint ${endpoint.id} ` } } });
    expect(mail.map((m) => m.to)).toEqual(['owner-a@example.com']);
    expect(mail[0]!.text).toContain(rx.url);
    // no new events for a disabled endpoint
    expect(await emit('watch.spike_started', { n: 3 })).toBeNull();

    // a re-send of a failed delivery, receiver fixed: delivered, the attempt manual
    rx.mode = { kind: 'ok' };
    const failed = list.find((d) => d.eventId === first)!;
    const resent = await gqlA.request<any>(
      gql`mutation($id: Int!) { resendWebhookDelivery(id: $id) { ${DELIVERY_FIELDS} } }`,
      { id: failed.id },
    );
    expect(resent.resendWebhookDelivery).toMatchObject({ status: 'delivered', eventId: first });
    expect(resent.resendWebhookDelivery.attempts[0]).toMatchObject({ httpStatus: 200, manual: true });
    expect(receivedOf(first!).at(-1)!.verifiedWith.length).toBe(1);
    // a delivered one can be re-sent too (the same event id)
    const again = await gqlA.request<any>(
      gql`mutation($id: Int!) { resendWebhookDelivery(id: $id) { attemptCount attempts { manual } } }`,
      { id: failed.id },
    );
    expect(again.resendWebhookDelivery.attempts.filter((a: any) => a.manual)).toHaveLength(2);

    const enabled = await gqlA.request<any>(
      gql`mutation($id: Int!) { enableWebhookEndpoint(id: $id) { status disabledReason failingSince } }`,
      { id: endpoint.id },
    );
    expect(enabled.enableWebhookEndpoint).toEqual({ status: 'enabled', disabledReason: null, failingSince: null });
  });

  it("sends a test event once, to a disabled endpoint too; a person's disable holds pending deliveries until enabled", async () => {
    const { endpoint } = await create({ url: rx.url, eventTypes: ['watch.reported'] });
    const t = await gqlA.request<any>(
      gql`mutation($id: Int!) { sendWebhookTestEvent(endpointId: $id) { ${DELIVERY_FIELDS} } }`,
      { id: endpoint.id },
    );
    expect(t.sendWebhookTestEvent).toMatchObject({ eventType: 'endpoint.test', status: 'delivered' });
    expect(receivedOf(t.sendWebhookTestEvent.eventId)[0]!.json.data).toEqual({
      endpoint_id: endpoint.id,
      message: expect.any(String),
    });

    const pending = await emit('watch.reported', { n: 'held' });
    const off = await gqlA.request<any>(
      gql`mutation($id: Int!) { disableWebhookEndpoint(id: $id) { status disabledReason } }`,
      { id: endpoint.id },
    );
    expect(off.disableWebhookEndpoint.status).toBe('disabled');
    expect(off.disableWebhookEndpoint.disabledReason).toMatch(/^Disabled by API key /);
    await round();
    expect(receivedOf(pending!)).toEqual([]);
    rx.mode = { kind: 'status', status: 500 };
    const probe = await gqlA.request<any>(
      gql`mutation($id: Int!) { sendWebhookTestEvent(endpointId: $id) { status attempts { httpStatus manual } } }`,
      { id: endpoint.id },
    );
    expect(probe.sendWebhookTestEvent).toEqual({ status: 'failed', attempts: [{ httpStatus: 500, manual: true }] });
    rx.mode = { kind: 'ok' };
    await gqlA.request(gql`mutation($id: Int!) { enableWebhookEndpoint(id: $id) { status } }`, { id: endpoint.id });
    await until(
      async () => {
        await round();
        return receivedOf(pending!);
      },
      (l) => l.length > 0,
    );

    const upd = await gqlA.request<any>(
      gql`mutation($i: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(input: $i) { eventTypes description url } }`,
      { i: { id: endpoint.id, eventTypes: ['watch.spike_started', 'watch.reported'], description: 'both' } },
    );
    expect(upd.updateWebhookEndpoint).toEqual({
      eventTypes: ['watch.spike_started', 'watch.reported'],
      description: 'both',
      url: rx.url,
    });
    expect(
      (
        await codeOf(
          gqlA.request(gql`mutation($i: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(input: $i) { id } }`, {
            i: { id: endpoint.id },
          }),
        )
      ).code,
    ).toBe('invalid_request');
    const del = await gqlA.request<any>(gql`mutation($id: Int!) { deleteWebhookEndpoint(id: $id) { id } }`, {
      id: endpoint.id,
    });
    expect(del.deleteWebhookEndpoint.id).toBe(endpoint.id);
    expect(await prisma().webhookDelivery.count({ where: { endpointId: endpoint.id } })).toBe(0);
  });

  it('sweeps finished deliveries and their events after 30 days, never a pending one', async () => {
    const { endpoint } = await create({ url: rx.url, eventTypes: ['watch.reported'] });
    const old = new Date(Date.now() - 31 * 86_400_000);
    const make = async (status: string, createdAt: Date) => {
      const event = await prisma().webhookEvent.create({
        data: {
          publicId: `evt_sweep_${status}_${createdAt.getTime()}`,
          workspaceId: workspaceA,
          type: 'watch.reported',
          data: {},
          createdAt,
        },
      });
      const d = await prisma().webhookDelivery.create({
        data: {
          eventId: event.id,
          endpointId: endpoint.id,
          workspaceId: workspaceA,
          status,
          createdAt,
          nextAttemptAt: new Date(Date.now() + 86_400_000),
        },
      });
      await prisma().webhookAttempt.create({
        data: { deliveryId: d.id, workspaceId: workspaceA, latencyMs: 1, httpStatus: 200 },
      });
      return { event: event.id, delivery: d.id };
    };
    const [oldDelivered, oldFailed, oldPending, recent] = [
      await make('delivered', old),
      await make('failed', old),
      await make('pending', old),
      await make('delivered', new Date()),
    ];
    expect(await sweepWebhookHistory(prisma(), new Date())).toEqual({ deliveries: 2, events: 2 });
    const left = await prisma().webhookDelivery.findMany({ where: { endpointId: endpoint.id }, select: { id: true } });
    expect(left.map((d) => d.id).sort()).toEqual([oldPending.delivery, recent.delivery].sort());
    expect(await prisma().webhookEvent.count({ where: { id: { in: [oldDelivered.event, oldFailed.event] } } })).toBe(0);
    expect(
      await prisma().webhookAttempt.count({
        where: { deliveryId: { in: [oldDelivered.delivery, oldFailed.delivery] } },
      }),
    ).toBe(0);
    expect(await sweepWebhookHistory(prisma(), new Date())).toEqual({ deliveries: 0, events: 0 });
  });

  it('another workspace sees none of the endpoints or deliveries and changes nothing (not_found, as for an unknown id)', async () => {
    const { endpoint } = await create({ url: rx.url, eventTypes: ['watch.reported'] });
    await emit('watch.reported', { n: 'isolated' });
    const [d] = await until(
      async () => {
        await round();
        return deliveries(endpoint.id);
      },
      (l) => l[0]?.status === 'delivered',
    );
    expect((await gqlB.request<any>(gql`{ webhookEndpoints { nodes { id } } }`)).webhookEndpoints.nodes).toEqual([]);
    expect((await gqlB.request<any>(gql`{ webhookDeliveries { nodes { id } } }`)).webhookDeliveries.nodes).toEqual([]);
    expect(await deliveries(endpoint.id, gqlB)).toEqual([]);
    const id = { id: endpoint.id };
    for (const m of [
      'rotateWebhookEndpointSecret',
      'disableWebhookEndpoint',
      'enableWebhookEndpoint',
      'deleteWebhookEndpoint',
    ]) {
      expect((await codeOf(gqlB.request(`mutation($id: Int!) { ${m}(id: $id) { __typename } }`, id))).code, m).toBe(
        'not_found',
      );
    }
    expect(
      (
        await codeOf(
          gqlB.request(gql`mutation($i: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(input: $i) { id } }`, {
            i: { id: endpoint.id, description: 'x' },
          }),
        )
      ).code,
    ).toBe('not_found');
    expect(
      (await codeOf(gqlB.request(gql`mutation($id: Int!) { sendWebhookTestEvent(endpointId: $id) { id } }`, id))).code,
    ).toBe('not_found');
    expect(
      (await codeOf(gqlB.request(gql`mutation($id: Int!) { resendWebhookDelivery(id: $id) { id } }`, { id: d.id })))
        .code,
    ).toBe('not_found');
    const after = await prisma().webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(after).toMatchObject({ status: 'enabled', description: '', previousSecret: null });
    expect(await prisma().webhookAttempt.count({ where: { deliveryId: d.id } })).toBe(1);
  });
});

async function startReceiverOn(port: number): Promise<Receiver> {
  // The outage test restarts the receiver where the endpoint points: retry until the port is free again.
  for (;;) {
    const r = await startReceiverAt(port).catch(() => null);
    if (r) return r;
    await new Promise((res) => setTimeout(res, 50));
  }
}
async function startReceiverAt(port: number) {
  const { startReceiver: start } = await import('../helpers/webhook-receiver.ts');
  return start(port);
}
