import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlaneHarness } from '../web/harness.ts';
import { backendName } from '../helpers/backend.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';

/**
 * Webhook endpoints managed by signed-in accounts (docs/control-plane.md, webhooks): /workspace/graphql's fields and
 * the Webhooks and Deliveries pages (the secret shown once, field errors that change nothing, test, rotate, re-send,
 * disable, delete), delivered to a real receiver that verifies the signatures; and another workspace's session
 * neither seeing nor changing any of it.
 */
type Gql = { status: number; body: any };
const ENDPOINT = 'id url eventTypes description status disabledReason createdAt';
const CREATE = `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret endpoint { ${ENDPOINT} } } }`;

describe(`control plane webhooks (${backendName})`, () => {
  let h: ControlPlaneHarness;
  let rx: Receiver;
  beforeAll(async () => {
    rx = await startReceiver();
    h = await startControlPlane({ env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } });
  });
  afterAll(async () => {
    await h?.close();
    await rx?.close();
  });

  async function account(email: string) {
    const u = h.client();
    const r = await u.signUp(email);
    expect(r.status, r.text).toBe(303);
    const gql = async (
      query: string,
      variables: Record<string, unknown> = {},
      headers: Record<string, string> = {},
    ): Promise<Gql> => {
      const res = await fetch(`${h.url}/workspace/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          cookie: `rk_session=${u.cookies.get('rk_session')}`,
          ...headers,
        },
        body: JSON.stringify({ query, variables }),
      });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* keep the text */
      }
      return { status: res.status, body };
    };
    const csrf = (await gql('{ csrfToken }')).body.data.csrfToken as string;
    const mutate = (query: string, variables: Record<string, unknown> = {}) =>
      gql(query, variables, { 'x-csrf-token': csrf });
    const row = await h.app.db.prisma.account.findUniqueOrThrow({ where: { email } });
    const post = async (path: string, form: Record<string, string>) =>
      u.request(path, { form: { _csrf: await u.csrfOf('/workspace/webhooks'), ...form } });
    return { u, gql, mutate, post, workspaceId: row.workspaceId };
  }
  const show = (r: Gql) => JSON.stringify(r.body);
  const codeOf = (r: Gql) => r.body?.errors?.[0]?.extensions?.code;
  const endpointRows = (text: string) => [...text.matchAll(/<tr data-endpoint="(\d+)">/g)].map((m) => Number(m[1]));

  it('/workspace/graphql creates, lists, rotates, disables, enables, tests and deletes endpoints; mutations need the CSRF token', async () => {
    const a = await account('hooks-gql@example.com');
    const made = await a.mutate(CREATE, { input: { url: rx.url, eventTypes: ['watch.reported'], description: 'soc' } });
    expect(made.status, show(made)).toBe(200);
    const { secret, endpoint } = made.body.data.createWebhookEndpoint;
    rx.secrets.add(secret);
    expect(endpoint).toMatchObject({
      url: rx.url,
      eventTypes: ['watch.reported'],
      description: 'soc',
      status: 'enabled',
    });
    const list = await a.gql(`{ webhookEndpoints { nodes { ${ENDPOINT} } nextCursor } }`);
    expect(list.body.data.webhookEndpoints).toEqual({ nodes: [endpoint], nextCursor: null });
    expect(show(list)).not.toContain(secret);

    const rotated = await a.mutate(
      'mutation($id: Int!) { rotateWebhookEndpointSecret(id: $id) { secret endpoint { id } } }',
      { id: endpoint.id },
    );
    const fresh = rotated.body.data.rotateWebhookEndpointSecret.secret;
    rx.secrets.add(fresh);
    const test = await a.mutate(
      'mutation($id: Int!) { sendWebhookTestEvent(endpointId: $id) { id eventId status attempts { httpStatus manual } } }',
      { id: endpoint.id },
    );
    expect(test.body.data.sendWebhookTestEvent, show(test)).toMatchObject({
      status: 'delivered',
      attempts: [{ httpStatus: 200, manual: true }],
    });
    const got = rx.received.find((r) => r.json.id === test.body.data.sendWebhookTestEvent.eventId)!;
    expect(new Set(got.verifiedWith)).toEqual(new Set([secret, fresh]));

    const off = await a.mutate('mutation($id: Int!) { disableWebhookEndpoint(id: $id) { status disabledReason } }', {
      id: endpoint.id,
    });
    expect(off.body.data.disableWebhookEndpoint).toEqual({
      status: 'disabled',
      disabledReason: 'Disabled by hooks-gql@example.com.',
    });
    const on = await a.mutate('mutation($id: Int!) { enableWebhookEndpoint(id: $id) { status } }', { id: endpoint.id });
    expect(on.body.data.enableWebhookEndpoint.status).toBe('enabled');
    const deliveries = await a.gql('{ webhookDeliveries { nodes { id eventType status attempts { httpStatus } } } }');
    expect(deliveries.body.data.webhookDeliveries.nodes).toEqual([
      expect.objectContaining({ eventType: 'endpoint.test', status: 'delivered' }),
    ]);

    const noCsrf = await a.gql(CREATE, { input: { url: rx.url, eventTypes: ['watch.reported'] } });
    expect([noCsrf.status, codeOf(noCsrf)]).toEqual([403, 'csrf_token_invalid']);
    const bad = await a.mutate(CREATE, { input: { url: 'http://example.com/x', eventTypes: [] } });
    expect(codeOf(bad), show(bad)).toBe('invalid_request');
    expect(bad.body.errors[0].extensions.details.map((d: any) => d.field).sort()).toEqual(['eventTypes', 'url']);
    const del = await a.mutate('mutation($id: Int!) { deleteWebhookEndpoint(id: $id) { id } }', { id: endpoint.id });
    expect(del.body.data.deleteWebhookEndpoint.id).toBe(endpoint.id);
    expect(await h.app.db.prisma.webhookEndpoint.count({ where: { workspaceId: a.workspaceId } })).toBe(0);
  });

  it('the Webhooks page creates with field errors, shows the secret once, tests, rotates, disables and deletes; Deliveries shows attempts and re-sends', async () => {
    const a = await account('hooks-page@example.com');
    const empty = await a.u.request('/workspace/webhooks');
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('id="no-endpoints"');
    expect(empty.text).toContain('href="/workspace/webhooks"'); // in the navigation

    const refused = await a.post('/workspace/webhooks', { url: 'http://example.com/x', description: 'keep me' });
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/data-field="url"/);
    expect(refused.text).toMatch(/data-field="event_types"/);
    expect(refused.text).toContain('value="keep me"');
    expect(await h.app.db.prisma.webhookEndpoint.count({ where: { workspaceId: a.workspaceId } })).toBe(0);

    const created = await a.post('/workspace/webhooks', {
      url: rx.url,
      event_types: 'watch.reported',
      description: 'page',
    });
    expect(created.status, created.text).toBe(201);
    const secret = /<code class="secret" id="secret">(whsec_[^<]+)<\/code>/.exec(created.text)?.[1];
    expect(secret).toBeDefined();
    rx.secrets.add(secret!);
    const [id] = endpointRows(created.text);
    const again = await a.u.request('/workspace/webhooks');
    expect(endpointRows(again.text)).toEqual([id]);
    expect(again.text).not.toContain(secret);

    const tested = await a.post('/workspace/webhooks/test', { id: String(id) });
    expect(tested.status).toBe(303);
    const target = tested.headers.get('location')!;
    expect(target).toMatch(new RegExp(`^/workspace/webhooks/deliveries\\?endpoint=${id}&tested=\\d+$`));
    const deliveries = await a.u.request(target);
    expect(deliveries.status).toBe(200);
    expect(deliveries.text).toContain('id="done"');
    expect(deliveries.text).toMatch(
      /<td>200<\/td><td>\d+ ms<\/td><td><\/td><td><code>thanks<\/code><\/td><td>manual<\/td>/,
    );
    const deliveryId = /<tr data-delivery="(\d+)">/.exec(deliveries.text)![1]!;
    expect(rx.received.at(-1)!.verifiedWith).toEqual([secret]);

    const resent = await a.post('/workspace/webhooks/deliveries/resend', { id: deliveryId, back: `endpoint=${id}&` });
    expect(resent.status).toBe(303);
    expect(resent.headers.get('location')).toBe(`/workspace/webhooks/deliveries?endpoint=${id}&resent=${deliveryId}`);
    const after = await a.u.request(resent.headers.get('location')!);
    expect([...after.text.matchAll(/<tr data-attempt="\d+">/g)]).toHaveLength(2);

    const rotated = await a.post('/workspace/webhooks/rotate', { id: String(id) });
    expect(rotated.status).toBe(200);
    const fresh = /<code class="secret" id="secret">(whsec_[^<]+)<\/code>/.exec(rotated.text)?.[1];
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(secret);

    const form = await a.u.request(`/workspace/webhooks/edit?id=${id}`);
    expect(form.status).toBe(200);
    expect(form.text).toContain(`value="${rx.url}"`);
    expect(form.text).toMatch(/value="watch\.reported" checked/);
    expect(form.text).not.toContain(secret);
    const badEdit = await a.post('/workspace/webhooks/edit', {
      id: String(id),
      url: 'https://10.0.0.1/x',
      description: 'typed',
    });
    expect(badEdit.status).toBe(400);
    expect(badEdit.text).toMatch(/data-field="url"/);
    expect(badEdit.text).toMatch(/data-field="event_types"/);
    expect(badEdit.text).toContain('value="typed"');
    expect(await h.app.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } })).toMatchObject({
      url: rx.url,
      description: 'page',
    });
    const saved = await a.post('/workspace/webhooks/edit', {
      id: String(id),
      url: rx.url,
      event_types: 'watch.spike_started',
      description: 'edited',
    });
    expect([saved.status, saved.headers.get('location')]).toEqual([303, `/workspace/webhooks?updated=${id}`]);
    expect(await h.app.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } })).toMatchObject({
      eventTypes: ['watch.spike_started'],
      description: 'edited',
    });

    const disabled = await a.post('/workspace/webhooks/disable', { id: String(id) });
    expect([disabled.status, disabled.headers.get('location')]).toEqual([303, `/workspace/webhooks?disabled=${id}`]);
    expect((await a.u.request('/workspace/webhooks')).text).toContain('data-status="disabled"');
    const badFilter = await a.u.request('/workspace/webhooks/deliveries?status=lost');
    expect(badFilter.status).toBe(400);
    const deleted = await a.post('/workspace/webhooks/delete', { id: String(id) });
    expect([deleted.status, deleted.headers.get('location')]).toEqual([303, `/workspace/webhooks?deleted=${id}`]);
    expect(endpointRows((await a.u.request('/workspace/webhooks')).text)).toEqual([]);
  });

  it("another workspace's session neither sees nor changes the endpoints and deliveries (not_found)", async () => {
    const a = await account('hooks-owner@example.com');
    const b = await account('hooks-other@example.com');
    const made = (await a.mutate(CREATE, { input: { url: rx.url, eventTypes: ['watch.reported'] } })).body.data
      .createWebhookEndpoint;
    const id = made.endpoint.id;
    const test = (await a.mutate('mutation($id: Int!) { sendWebhookTestEvent(endpointId: $id) { id } }', { id })).body
      .data.sendWebhookTestEvent;
    expect((await b.gql('{ webhookEndpoints { nodes { id } } }')).body.data.webhookEndpoints.nodes).toEqual([]);
    expect(
      (await b.gql(`{ webhookDeliveries(endpointId: ${id}) { nodes { id } } }`)).body.data.webhookDeliveries.nodes,
    ).toEqual([]);
    for (const m of [
      'rotateWebhookEndpointSecret',
      'disableWebhookEndpoint',
      'enableWebhookEndpoint',
      'deleteWebhookEndpoint',
    ]) {
      expect(codeOf(await b.mutate(`mutation($id: Int!) { ${m}(id: $id) { __typename } }`, { id })), m).toBe(
        'not_found',
      );
    }
    expect(codeOf(await b.mutate('mutation($id: Int!) { sendWebhookTestEvent(endpointId: $id) { id } }', { id }))).toBe(
      'not_found',
    );
    expect(
      codeOf(await b.mutate('mutation($id: Int!) { resendWebhookDelivery(id: $id) { id } }', { id: test.id })),
    ).toBe('not_found');
    expect(
      codeOf(
        await b.mutate('mutation($i: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(input: $i) { id } }', {
          i: { id, description: 'x' },
        }),
      ),
    ).toBe('not_found');
    expect((await b.u.request(`/workspace/webhooks/edit?id=${id}`)).status).toBe(404);
    expect(
      (
        await b.post('/workspace/webhooks/edit', {
          id: String(id),
          url: rx.url,
          event_types: 'watch.reported',
          description: 'b',
        })
      ).status,
    ).toBe(404);
    for (const path of ['test', 'rotate', 'disable', 'delete']) {
      expect((await b.post(`/workspace/webhooks/${path}`, { id: String(id) })).status, path).toBe(404);
    }
    expect((await b.post('/workspace/webhooks/deliveries/resend', { id: String(test.id) })).status).toBe(404);
    const page = await b.u.request(`/workspace/webhooks/deliveries?endpoint=${id}`);
    expect(page.text).toContain('id="no-deliveries"');
    expect(endpointRows((await b.u.request('/workspace/webhooks')).text)).toEqual([]);
    const kept = await h.app.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    expect(kept).toMatchObject({ status: 'enabled', secret: made.secret, description: '' });
    expect(await h.app.db.prisma.webhookAttempt.count({ where: { deliveryId: test.id } })).toBe(1);
  });
});
