import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlaneHarness } from '../web/harness.ts';
import { backendName } from '../helpers/backend.ts';

/**
 * Watches managed by signed-in accounts (docs/control-plane.md, watches): /workspace/graphql's fields and the
 * Watches page, authored by the account; CSRF refusals and bad forms that change nothing; and another workspace's
 * session neither seeing nor deleting a watch.
 */
type Gql = { status: number; body: any };
const WATCH =
  'id targetKind target scoreThreshold note author { kind id label } lastScore lastLevel lastPublicationVersion lastSpiking';
const CREATE = `mutation($input: CreateWatchInput!) { createWatch(input: $input) { ${WATCH} } }`;
const UPDATE = `mutation($input: UpdateWatchInput!) { updateWatch(input: $input) { ${WATCH} } }`;
const DELETE = `mutation($id: Int!) { deleteWatch(id: $id) { ${WATCH} } }`;
const LIST = `query($first: Int, $after: String) { watches(first: $first, after: $after) { nodes { ${WATCH} } nextCursor } }`;

describe(`control plane watches (${backendName})`, () => {
  let h: ControlPlaneHarness;
  beforeAll(async () => {
    h = await startControlPlane();
  });
  afterAll(() => h?.close());

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
        /* keep the text for the failure message */
      }
      return { status: res.status, body };
    };
    const csrf = (await gql('{ csrfToken }')).body.data.csrfToken as string;
    const mutate = (query: string, variables: Record<string, unknown> = {}) =>
      gql(query, variables, { 'x-csrf-token': csrf });
    const row = await h.app.db.prisma.account.findUniqueOrThrow({ where: { email } });
    const watches = () =>
      h.app.db.prisma.watch.findMany({ where: { workspaceId: row.workspaceId }, orderBy: { id: 'asc' } });
    return { u, gql, mutate, csrf, email, accountId: row.id, watches };
  }
  type Account = Awaited<ReturnType<typeof account>>;
  const show = (r: Gql) => JSON.stringify(r.body);
  const codeOf = (r: Gql) => r.body?.errors?.[0]?.extensions?.code;
  const postForm = async (a: Account, path: string, form: Record<string, string>) =>
    a.u.request(path, { form: { _csrf: await a.u.csrfOf('/workspace/watches'), ...form } });
  const watchRows = (text: string) => [...text.matchAll(/<tr data-watch="(\d+)">/g)].map((m) => Number(m[1]));

  it('/workspace/graphql creates, updates, lists and deletes watches, authored by the account', async () => {
    const a = await account('gql-watches@example.com');
    const made = await a.mutate(CREATE, { input: { target: '198.51.100.0/24', scoreThreshold: 70, note: 'ticket 7' } });
    expect(made.status, show(made)).toBe(200);
    const w = made.body.data.createWatch;
    expect(w).toMatchObject({
      targetKind: 'cidr',
      target: '198.51.100.0/24',
      scoreThreshold: 70,
      note: 'ticket 7',
      author: { kind: 'account', id: a.accountId, label: a.email },
      lastScore: null,
      lastSpiking: false,
    });
    const subject = (await a.mutate(CREATE, { input: { subject: { kind: 'phone', key: '+31 20 123 4567' } } })).body
      .data.createWatch;
    expect(subject).toMatchObject({ targetKind: 'subject', target: 'phone:+31201234567' });
    const updated = await a.mutate(UPDATE, { input: { id: w.id, scoreThreshold: null } });
    expect(updated.body.data?.updateWatch, show(updated)).toMatchObject({
      id: w.id,
      scoreThreshold: null,
      note: 'ticket 7',
    });
    const list = await a.gql(LIST, { first: 1 });
    expect(list.body.data.watches.nodes.map((n: { id: number }) => n.id)).toEqual([w.id]);
    const next = await a.gql(LIST, { first: 1, after: list.body.data.watches.nextCursor });
    expect(next.body.data.watches).toEqual({ nodes: [expect.objectContaining({ id: subject.id })], nextCursor: null });
    const deleted = await a.mutate(DELETE, { id: subject.id });
    expect(deleted.body.data.deleteWatch.id).toBe(subject.id);
    expect((await a.watches()).map((x) => x.id)).toEqual([w.id]);
    // Refusals: coded, the field named, nothing changed; a mutation without the CSRF header is refused.
    const bad = await a.mutate(CREATE, { input: { target: 'NL' } });
    expect([codeOf(bad), bad.body.errors[0].extensions.details[0].field]).toEqual(['invalid_request', 'target']);
    const dup = await a.mutate(CREATE, { input: { target: '198.51.100.0/24' } });
    expect(codeOf(dup)).toBe('watch_exists');
    const noCsrf = await a.gql(CREATE, { input: { target: '192.0.2.1' } });
    expect([noCsrf.status, codeOf(noCsrf)], show(noCsrf)).toEqual([403, 'csrf_token_invalid']);
    expect((await a.watches()).map((x) => x.id)).toEqual([w.id]);
  });

  it('the Watches page creates a watch, lists it escaped, and deletes it', async () => {
    const a = await account('page-watches@example.com');
    const empty = await a.u.request('/workspace/watches');
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('<a href="/workspace/watches">Watches</a>');
    expect(empty.text).toContain('id="no-watches"');
    const created = await postForm(a, '/workspace/watches', {
      target: '203.0.113.7',
      subject_kind: '',
      subject_key: '',
      score_threshold: '60',
      note: 'a & <b>',
    });
    expect(created.status, created.text).toBe(303);
    const [w] = await a.watches();
    expect(w).toMatchObject({
      targetKind: 'ip',
      target: '203.0.113.7',
      scoreThreshold: 60,
      note: 'a & <b>',
      authorKind: 'account',
      authorId: a.accountId,
    });
    expect(created.headers.get('location')).toBe(`/workspace/watches?created=${w!.id}`);
    const subject = await postForm(a, '/workspace/watches', {
      target: '',
      subject_kind: 'domain',
      subject_key: 'Shop.Example',
      score_threshold: '',
      note: '',
    });
    expect(subject.status, subject.text).toBe(303);
    const listed = await a.u.request(`/workspace/watches?created=${w!.id}`);
    expect(listed.text).toContain(`id="done">Watch ${w!.id} created.`);
    expect(watchRows(listed.text)).toHaveLength(2);
    expect(listed.text).toContain('a &amp; &lt;b&gt;');
    expect(listed.text).toContain('domain:shop.example');
    expect(listed.text).toContain('id="watch-count">2 of 10,000 watches.');
    const deleted = await postForm(a, '/workspace/watches/delete', { id: String(w!.id) });
    expect([deleted.status, deleted.headers.get('location')]).toEqual([303, `/workspace/watches?deleted=${w!.id}`]);
    expect(watchRows((await a.u.request('/workspace/watches')).text)).toHaveLength(1);
    expect((await postForm(a, '/workspace/watches/delete', { id: String(w!.id) })).status).toBe(404);
  });

  it('a bad form is shown again with a field-level message and what was typed; a form without the CSRF token changes nothing', async () => {
    const a = await account('page-watches-invalid@example.com');
    const base = { target: '192.0.2.47', subject_kind: '', subject_key: '', score_threshold: '', note: '' };
    const cases: Array<[Record<string, string>, string, RegExp]> = [
      [{ target: '192.0.2.300' }, 'target', /must be an IP address, a CIDR block or an AS number/],
      [{ target: '' }, 'target', /is required \(or subject\)/],
      [
        { target: '', subject_kind: 'ipaddress', subject_key: '192.0.2.1' },
        'subject_kind',
        /watch an IP address with target instead/,
      ],
      [{ target: '', subject_kind: 'email', subject_key: 'nobody' }, 'subject_key', /./],
      [{ score_threshold: '0' }, 'score_threshold', /must be 1 to 100/],
      [{ score_threshold: 'lots' }, 'score_threshold', /must be an integer/],
    ];
    for (const [change, field, message] of cases) {
      const typed = { ...base, ...change };
      const r = await postForm(a, '/workspace/watches', typed);
      expect(r.status, `${JSON.stringify(change)}: ${r.text.slice(0, 500)}`).toBe(400);
      expect(r.text).toContain('data-code="invalid_request"');
      const error = new RegExp(
        `<span class="field-error" id="${field}-error" data-field="${field}">([^<]*)</span>`,
      ).exec(r.text);
      expect(
        error?.[1] ?? r.text.slice(r.text.indexOf('<main>'), r.text.indexOf('<form')),
        JSON.stringify(change),
      ).toMatch(message);
      expect(r.text).toContain(`name="target" value="${typed.target}"`);
    }
    const noToken = await a.u.request('/workspace/watches', { form: base });
    expect(noToken.status).toBe(403);
    expect(await a.watches()).toEqual([]);
    expect((await postForm(a, '/workspace/watches', base)).status).toBe(303);
    const dup = await postForm(a, '/workspace/watches', base);
    expect(dup.status).toBe(409);
    expect(dup.text).toContain('data-code="watch_exists"');
  });

  it("another workspace's session neither sees nor deletes the watch, on the page or /workspace/graphql", async () => {
    const a = await account('iso-watches-a@example.com');
    const b = await account('iso-watches-b@example.com');
    const w = (await a.mutate(CREATE, { input: { target: '192.0.2.99', note: 'a only' } })).body.data.createWatch;
    expect(watchRows((await b.u.request('/workspace/watches')).text)).toEqual([]);
    expect((await b.gql(LIST)).body.data.watches.nodes).toEqual([]);
    expect(codeOf(await b.mutate(DELETE, { id: w.id }))).toBe('not_found');
    expect(codeOf(await b.mutate(UPDATE, { input: { id: w.id, note: 'hijack' } }))).toBe('not_found');
    expect((await postForm(b, '/workspace/watches/delete', { id: String(w.id) })).status).toBe(404);
    expect((await a.watches()).map((x) => x.note)).toEqual(['a only']);
  });
});
