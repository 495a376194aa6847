import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlaneHarness } from '../web/harness.ts';
import { backendName } from '../helpers/backend.ts';
import { setWorkspaceTier } from '../../src/domain/access/keys.ts';

/**
 * Override rules managed by signed-in accounts (docs/control-plane.md, overrides): /workspace/graphql's fields and
 * the Overrides page, each change authored by the account with surface control_plane; CSRF refusals and bad forms
 * that change nothing; a rule made on the page changing the next REST score of the workspace's key; and another
 * workspace's session neither seeing nor expiring the rule.
 */
type Gql = { status: number; body: any };
const RULE =
  'id targetKind target action points reason note author { kind id label } expiresAt expiredAt createdAt active';
const CREATE = `mutation($input: CreateOverrideInput!) { createOverride(input: $input) { ${RULE} } }`;
const UPDATE = `mutation($input: UpdateOverrideInput!) { updateOverride(input: $input) { ${RULE} } }`;
const EXPIRE = `mutation($id: Int!) { expireOverride(id: $id) { ${RULE} } }`;
const LIST = `query($state: OverrideRuleState, $first: Int, $after: String) { overrides(state: $state, first: $first, after: $after) { nodes { ${RULE} } nextCursor } }`;
const AUDIT = `query($first: Int, $after: String) { overrideAudit(first: $first, after: $after) { nodes { id ruleId action surface actor { kind id label } before { reason expiredAt } after { target reason expiredAt } } nextCursor } }`;

describe(`control plane override rules (${backendName})`, () => {
  let h: ControlPlaneHarness;
  beforeAll(async () => {
    h = await startControlPlane();
  });
  afterAll(() => h?.close());

  /** A registered account on a tier that scores: its browser, GraphQL helpers and an API key of its workspace. */
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
    const row = await h.app.db.prisma.account.findUniqueOrThrow({ where: { email }, include: { workspace: true } });
    await setWorkspaceTier(h.app.db.prisma, row.workspace.name, 'developer');
    h.app.verifier.invalidate();
    const key = (await mutate('mutation { createApiKey(name: "scorer") { secret } }')).body.data.createApiKey
      .secret as string;
    const score = async (ip: string) => {
      const res = await fetch(`${h.url}/risk_api/score/`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ ip }),
      });
      const body = (await res.json()) as any;
      expect(res.status, JSON.stringify(body)).toBe(200);
      return body;
    };
    const rules = async () =>
      await h.app.db.prisma.overrideRule.findMany({ where: { workspaceId: row.workspaceId }, orderBy: { id: 'asc' } });
    return { u, gql, mutate, csrf, email, accountId: row.id, score, rules };
  }
  type Account = Awaited<ReturnType<typeof account>>;

  const show = (r: Gql) => JSON.stringify(r.body);
  const codeOf = (r: Gql) => r.body?.errors?.[0]?.extensions?.code;
  /** The Overrides page's form posted as a browser posts it, with the page's own CSRF token unless one is given. */
  const postForm = async (a: Account, path: string, form: Record<string, string>) =>
    a.u.request(path, { form: { _csrf: await a.u.csrfOf('/workspace/overrides'), ...form } });
  const ruleRows = (text: string) => [...text.matchAll(/<tr data-rule="(\d+)">/g)].map((m) => Number(m[1]));
  const auditRows = (text: string) => [...text.matchAll(/<tr data-entry="(\d+)">/g)].map((m) => Number(m[1]));

  it('/workspace/graphql creates, updates, lists, expires and audits rules, authored by the account from control_plane', async () => {
    const a = await account('gql-rules@example.com');
    const made = await a.mutate(CREATE, {
      input: { target: '198.51.100.0/24', action: 'adjust', points: 30, reason: 'card testing', note: 'ticket 7' },
    });
    expect(made.status, show(made)).toBe(200);
    const rule = made.body.data.createOverride;
    expect(rule).toMatchObject({
      targetKind: 'cidr',
      target: '198.51.100.0/24',
      action: 'adjust',
      points: 30,
      reason: 'card testing',
      note: 'ticket 7',
      author: { kind: 'account', id: a.accountId, label: a.email },
      expiresAt: null,
      expiredAt: null,
      active: true,
    });
    const second = (await a.mutate(CREATE, { input: { target: 'AS64500', action: 'allow', reason: 'partner' } })).body
      .data.createOverride;

    const updated = await a.mutate(UPDATE, {
      input: {
        id: rule.id,
        reason: 'card testing, confirmed',
        expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      },
    });
    expect(updated.body.data?.updateOverride, show(updated)).toMatchObject({
      id: rule.id,
      reason: 'card testing, confirmed',
      note: 'ticket 7',
      action: 'adjust',
      points: 30,
    });
    expect(updated.body.data.updateOverride.expiresAt).not.toBeNull();
    const cleared = await a.mutate(UPDATE, { input: { id: rule.id, expiresAt: null } });
    expect(cleared.body.data?.updateOverride.expiresAt, show(cleared)).toBeNull();

    const page1 = await a.gql(LIST, { first: 1 });
    expect(
      page1.body.data.overrides.nodes.map((n: any) => n.id),
      show(page1),
    ).toEqual([rule.id]);
    const page2 = await a.gql(LIST, { first: 1, after: page1.body.data.overrides.nextCursor });
    expect(page2.body.data.overrides).toEqual({
      nodes: [expect.objectContaining({ id: second.id })],
      nextCursor: null,
    });

    const expired = await a.mutate(EXPIRE, { id: second.id });
    expect(expired.body.data?.expireOverride, show(expired)).toMatchObject({ id: second.id, active: false });
    expect(expired.body.data.expireOverride.expiredAt).not.toBeNull();
    const again = await a.mutate(EXPIRE, { id: second.id });
    expect(codeOf(again), show(again)).toBe('override_not_active');
    expect((await a.gql(LIST, { state: 'active' })).body.data.overrides.nodes.map((n: any) => n.id)).toEqual([rule.id]);
    expect((await a.gql(LIST, { state: 'inactive' })).body.data.overrides.nodes.map((n: any) => n.id)).toEqual([
      second.id,
    ]);
    expect((await a.gql(LIST, { state: 'all' })).body.data.overrides.nodes.map((n: any) => n.id)).toEqual([
      rule.id,
      second.id,
    ]);

    const trail = await a.gql(AUDIT, { first: 3 });
    expect(trail.status, show(trail)).toBe(200);
    const me = { kind: 'account', id: a.accountId, label: a.email };
    expect(trail.body.data.overrideAudit.nodes).toEqual([
      expect.objectContaining({
        ruleId: rule.id,
        action: 'create',
        surface: 'control_plane',
        actor: me,
        before: null,
        after: expect.objectContaining({ target: '198.51.100.0/24' }),
      }),
      expect.objectContaining({ ruleId: second.id, action: 'create', surface: 'control_plane', actor: me }),
      expect.objectContaining({
        ruleId: rule.id,
        action: 'update',
        surface: 'control_plane',
        actor: me,
        before: { reason: 'card testing', expiredAt: null },
        after: expect.objectContaining({ reason: 'card testing, confirmed' }),
      }),
    ]);
    const rest = await a.gql(AUDIT, { after: trail.body.data.overrideAudit.nextCursor });
    expect(rest.body.data.overrideAudit.nodes.map((n: any) => n.action)).toEqual(['update', 'expire']);
    expect(rest.body.data.overrideAudit.nextCursor).toBeNull();
    // The rule made here applies to the workspace's key on REST.
    expect((await a.score('198.51.100.9')).override).toMatchObject({
      rule_id: rule.id,
      action: 'adjust',
      points: 30,
      reason: 'card testing, confirmed',
    });
  });

  it('/workspace/graphql refuses bad input with the field named, and mutations without the CSRF token; nothing changes', async () => {
    const a = await account('gql-refusals@example.com');
    const bad = [
      [{ target: '203.0.113.5/24', action: 'deny', reason: 'x' }, 'target'],
      [{ target: 'ZZ', action: 'deny', reason: 'x' }, 'target'],
      [{ target: '203.0.113.5', action: 'adjust', reason: 'x' }, 'points'],
      [{ target: '203.0.113.5', action: 'deny', points: 5, reason: 'x' }, 'points'],
      [{ target: '203.0.113.5', action: 'deny', reason: '   ' }, 'reason'],
      [{ target: '203.0.113.5', action: 'deny', reason: 'x', expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt'],
    ] as const;
    for (const [input, field] of bad) {
      const r = await a.mutate(CREATE, { input });
      expect(codeOf(r), show(r)).toBe('invalid_request');
      expect(
        r.body.errors[0].extensions.details?.map((d: any) => d.field) ?? r.body.errors[0].message,
        show(r),
      ).toContain(field);
    }
    const page = await a.gql('query { overrides(first: 101) { nodes { id } } }');
    expect(codeOf(page), show(page)).toBe('invalid_request');
    const cursor = await a.gql('query { overrideAudit(after: "0") { nodes { id } } }');
    expect(codeOf(cursor), show(cursor)).toBe('invalid_request');
    const noCsrf = await a.gql(CREATE, { input: { target: '203.0.113.5', action: 'deny', reason: 'x' } });
    expect([noCsrf.status, codeOf(noCsrf)], show(noCsrf)).toEqual([403, 'csrf_token_invalid']);
    expect(await a.rules()).toEqual([]);
    const kept = (await a.mutate(CREATE, { input: { target: '203.0.113.5', action: 'deny', reason: 'kept' } })).body
      .data.createOverride;
    for (const [query, variables] of [
      [EXPIRE, { id: kept.id }],
      [UPDATE, { input: { id: kept.id, reason: 'changed' } }],
    ] as const) {
      const r = await a.gql(query, variables, { 'x-csrf-token': 'not-the-token' });
      expect([r.status, codeOf(r)], show(r)).toEqual([403, 'csrf_token_invalid']);
    }
    const twice = await a.mutate(CREATE, { input: { target: '203.0.113.5', action: 'allow', reason: 'other' } });
    expect(codeOf(twice), show(twice)).toBe('override_exists');
    expect((await a.rules()).map((r) => [r.reason, r.expiredAt])).toEqual([['kept', null]]);
    expect(await h.app.db.prisma.overrideAudit.count({ where: { ruleId: kept.id } })).toBe(1);
  });

  it('the Overrides page creates a rule that changes the next REST score, lists it escaped, and expires it', async () => {
    const a = await account('page-rules@example.com');
    const ip = '192.0.2.44';
    const before = await a.score(ip);
    expect(before.override).toBeNull();

    const empty = await a.u.request('/workspace/overrides');
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('<a href="/workspace/overrides">Overrides</a>'); // in the navigation
    expect(empty.text).toContain('id="no-rules"');
    expect((await a.u.request('/workspace/keys')).text).toContain('<a href="/workspace/overrides">Overrides</a>');

    const created = await postForm(a, '/workspace/overrides', {
      target: ip,
      action: 'deny',
      points: '',
      reason: 'chargebacks <script>alert(1)</script>',
      note: 'a & b',
      expires_in: '7d',
    });
    expect(created.status, created.text).toBe(303);
    const [rule] = await a.rules();
    expect(rule).toMatchObject({
      target: ip,
      action: 'deny',
      authorKind: 'account',
      authorId: a.accountId,
      authorLabel: a.email,
      note: 'a & b',
    });
    expect(created.headers.get('location')).toBe(`/workspace/overrides?created=${rule!.id}`);
    const expiresIn = rule!.expiresAt!.getTime() - Date.now();
    expect(expiresIn).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(expiresIn).toBeLessThanOrEqual(7 * 86_400_000);

    const denied = await a.score(ip);
    expect(denied.score.overall_risk_level).toBe('critical');
    expect(denied.override).toMatchObject({
      rule_id: rule!.id,
      action: 'deny',
      reason: 'chargebacks <script>alert(1)</script>',
    });

    const listed = await a.u.request(`/workspace/overrides?created=${rule!.id}`);
    expect(listed.text).toContain(`id="done">Rule ${rule!.id} created.`);
    expect(ruleRows(listed.text)).toEqual([rule!.id]);
    expect(listed.text).toContain('chargebacks &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(listed.text).not.toContain('<script>alert(1)');
    expect(listed.text).toContain('a &amp; b');
    expect(listed.text).toContain(`${a.email} (account)`);
    const audit = await a.gql(AUDIT);
    expect(audit.body.data.overrideAudit.nodes).toEqual([
      expect.objectContaining({
        ruleId: rule!.id,
        action: 'create',
        surface: 'control_plane',
        actor: { kind: 'account', id: a.accountId, label: a.email },
      }),
    ]);

    const expired = await postForm(a, '/workspace/overrides/expire', { id: String(rule!.id) });
    expect([expired.status, expired.headers.get('location')], expired.text).toEqual([
      303,
      `/workspace/overrides?expired=${rule!.id}`,
    ]);
    expect((await a.score(ip)).override).toBeNull();
    const after = await a.u.request('/workspace/overrides');
    expect(ruleRows(after.text)).toEqual([]);
    expect(auditRows(after.text)).toHaveLength(2); // the expiry first (newest), then the creation
    expect(after.text).toMatch(
      /<tr data-entry="\d+"><td>[^<]+<\/td><td>\d+<\/td><td>expire<\/td><td>control_plane<\/td>/,
    );
    const again = await postForm(a, '/workspace/overrides/expire', { id: String(rule!.id) });
    expect(again.status, again.text).toBe(409); // override_not_active, as a page
  });

  it("a form without the session's CSRF token, or from another origin, is refused and changes nothing", async () => {
    const a = await account('page-csrf@example.com');
    const other = await account('page-csrf-other@example.com');
    const form = { target: '192.0.2.45', action: 'deny', points: '', reason: 'x', note: '', expires_in: 'never' };
    for (const token of [undefined, '', other.csrf, 'x'.repeat(43)]) {
      const r = await a.u.request('/workspace/overrides', {
        form: { ...form, ...(token === undefined ? {} : { _csrf: token }) },
      });
      expect(r.status, r.text).toBe(403);
    }
    const foreign = await a.u.request('/workspace/overrides', {
      form: { ...form, _csrf: a.csrf },
      headers: { origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);
    expect(await a.rules()).toEqual([]);
    const kept = (await a.mutate(CREATE, { input: { target: '192.0.2.46', action: 'deny', reason: 'kept' } })).body.data
      .createOverride;
    const expire = await a.u.request('/workspace/overrides/expire', {
      form: { id: String(kept.id), _csrf: other.csrf },
    });
    expect(expire.status).toBe(403);
    expect((await a.rules()).map((r) => r.expiredAt)).toEqual([null]);
  });

  it('a bad form is shown again with a coded, field-level message and what was typed; nothing is created', async () => {
    const a = await account('page-invalid@example.com');
    const base = { target: '192.0.2.47', action: 'deny', points: '', reason: 'r', note: '', expires_in: 'never' };
    const cases: Array<[Record<string, string>, string, RegExp]> = [
      [{ target: '192.0.2.300' }, 'target', /must be an IP address, a CIDR block/],
      [{ target: '10.0.0.1/8' }, 'target', /host bits set; the block is 10\.0\.0\.0\/8/],
      [{ action: 'adjust' }, 'points', /is required for adjust/],
      [{ points: '5' }, 'points', /must be absent for deny/],
      [{ action: 'adjust', points: 'lots' }, 'points', /must be an integer/],
      [{ action: 'adjust', points: '101' }, 'points', /must be -100 to 100/],
      [{ reason: '' }, 'reason', /must not be empty/],
      [{ expires_in: 'forever' }, 'expires_in', /must be one of: never, 1h/],
      [{ action: 'block' }, 'action', /must be one of: allow, deny, adjust/],
    ];
    for (const [change, field, message] of cases) {
      const typed = { ...base, ...change };
      const r = await postForm(a, '/workspace/overrides', typed);
      expect(r.status, `${JSON.stringify(change)}: ${r.text.slice(0, 500)}`).toBe(400);
      expect(r.text).toContain('data-code="invalid_request"');
      const error = new RegExp(
        `<span class="field-error" id="${field}-error" data-field="${field}">([^<]*)</span>`,
      ).exec(r.text);
      expect(error?.[1], `${JSON.stringify(change)}: ${r.text.slice(0, 3000)}`).toMatch(message);
      expect(r.text).toContain(`aria-describedby="${field}-error"`);
      if (field !== 'target') expect(r.text).toContain(`name="target" value="${typed.target}"`); // what was typed is kept
    }
    // two problems at once: both named
    const both = await postForm(a, '/workspace/overrides', { ...base, target: 'nowhere', expires_in: 'soon' });
    expect(both.text).toContain('id="target-error"');
    expect(both.text).toContain('id="expires_in-error"');
    expect(await a.rules()).toEqual([]);
    expect(await h.app.db.prisma.overrideAudit.count({ where: { actorId: a.accountId, actorKind: 'account' } })).toBe(
      0,
    );

    // a target with a rule in force: 409 override_exists, on the target field
    expect((await postForm(a, '/workspace/overrides', base)).status).toBe(303);
    const exists = await postForm(a, '/workspace/overrides', { ...base, action: 'allow' });
    expect(exists.status).toBe(409);
    expect(exists.text).toContain('data-code="override_exists"');
    expect(exists.text).toMatch(/id="target-error" data-field="target">target already has rule \d+ in force/);
    expect((await a.rules()).map((r) => r.action)).toEqual(['deny']);
    // an expire form naming no rule, and a bad address-bar cursor: coded error pages
    expect((await postForm(a, '/workspace/overrides/expire', { id: 'one' })).status).toBe(400);
    expect((await postForm(a, '/workspace/overrides/expire', { id: '999999' })).status).toBe(404);
    expect((await a.u.request('/workspace/overrides?audit_after=-1')).status).toBe(400);
  });

  it('the history pages newest first and the NDJSON download is the REST export of the same trail', async () => {
    const a = await account('page-history@example.com');
    for (let i = 0; i < 11; i++) {
      const made = (
        await a.mutate(CREATE, { input: { target: `192.0.2.${100 + i}`, action: 'allow', reason: `r${i}` } })
      ).body.data.createOverride;
      await a.mutate(EXPIRE, { id: made.id });
    }
    const ids = (
      await h.app.db.prisma.overrideAudit.findMany({
        where: { actorId: a.accountId, actorKind: 'account' },
        orderBy: { id: 'desc' },
        select: { id: true },
      })
    ).map((e) => e.id);
    expect(ids).toHaveLength(22);
    const first = await a.u.request('/workspace/overrides');
    expect(auditRows(first.text)).toEqual(ids.slice(0, 20));
    const older = /href="([^"]+)" id="older"/.exec(first.text)?.[1]?.replace(/&amp;/g, '&');
    expect(older).toBe(`/workspace/overrides?audit_after=${ids[19]}#history`);
    const second = await a.u.request(older!.replace('#history', ''));
    expect(auditRows(second.text)).toEqual(ids.slice(20));
    expect(second.text).not.toContain('id="older"');

    const download = await a.u.request('/workspace/overrides/audit.ndjson');
    expect(download.status, download.text).toBe(200);
    expect(download.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(download.headers.get('content-disposition')).toContain('attachment');
    expect(download.headers.get('content-security-policy')).toContain("default-src 'none'");
    const lines = download.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.id)).toEqual([...ids].reverse()); // oldest first, as REST exports it
    expect(lines[0]).toMatchObject({
      action: 'create',
      surface: 'control_plane',
      actor: { kind: 'account', id: a.accountId, label: a.email },
      before: null,
      after: { target: '192.0.2.100' },
    });
    const paged = await a.u.request('/workspace/overrides/audit.ndjson?limit=5');
    expect(paged.headers.get('x-next-cursor')).toBe(String(lines[4].id));
    const next = await a.u.request(`/workspace/overrides/audit.ndjson?limit=5&cursor=${lines[4].id}`);
    expect(
      next.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual(lines.slice(5, 10).map((l) => l.id));
    for (const bad of ['limit=0', 'limit=10001', 'limit=ten', 'cursor=abc']) {
      const r = await a.u.request(`/workspace/overrides/audit.ndjson?${bad}`);
      expect(r.status, bad).toBe(400);
    }
    // The same trail over REST, with the workspace's key.
    const rest = await fetch(`${h.url}/risk_api/overrides/audit/`, {
      method: 'POST',
      headers: {
        'x-api-key': (await a.mutate('mutation { createApiKey(name: "export") { secret } }')).body.data.createApiKey
          .secret,
        'content-type': 'application/json',
      },
      body: '{}',
    });
    expect(await rest.text()).toBe(download.text);
  });

  it('the rules in force page 100 at a time, oldest first', async () => {
    const a = await account('page-many@example.com');
    for (let batch = 0; batch < 4; batch++) {
      const creates = Array.from(
        { length: batch < 3 ? 30 : 11 },
        (_, i) => `r${i}: createOverride(input: { target: "10.1.${batch}.${i}", action: deny, reason: "bulk" }) { id }`,
      );
      const r = await a.mutate(`mutation { ${creates.join(' ')} }`);
      expect(r.body.errors, show(r)).toBeUndefined();
    }
    const ids = (await a.rules()).map((r) => r.id);
    expect(ids).toHaveLength(101);
    const first = await a.u.request('/workspace/overrides');
    expect(ruleRows(first.text)).toEqual(ids.slice(0, 100));
    const more = /<a href="([^"]+)">More rules<\/a>/.exec(first.text)?.[1];
    expect(more).toBe(`/workspace/overrides?rules_after=${ids[99]}`);
    const second = await a.u.request(more!);
    expect(ruleRows(second.text)).toEqual([ids[100]]);
    expect(second.text).not.toContain('More rules');
  });

  it("another workspace's session neither sees nor expires the rule, on the page, the download or /workspace/graphql", async () => {
    const a = await account('owner-rules@example.com');
    const b = await account('other-rules@example.com');
    const secret = 'a-private-reason-7f3a';
    const rule = (
      await a.mutate(CREATE, { input: { target: '192.0.2.60', action: 'deny', reason: secret, note: secret } })
    ).body.data.createOverride;

    const page = await b.u.request('/workspace/overrides');
    expect(page.status).toBe(200);
    expect(page.text).not.toContain(secret);
    expect(ruleRows(page.text)).toEqual([]);
    expect(auditRows(page.text)).toEqual([]);
    const download = await b.u.request('/workspace/overrides/audit.ndjson');
    expect([download.status, download.text]).toEqual([200, '']);
    for (const query of [
      `{ overrides(state: all) { nodes { id reason } } }`,
      '{ overrideAudit { nodes { id ruleId } } }',
    ]) {
      const r = await b.gql(query);
      expect(JSON.stringify(r.body), query).not.toContain(secret);
      expect(Object.values(r.body.data as Record<string, { nodes: unknown[] }>)[0]!.nodes).toEqual([]);
    }

    const byForm = await postForm(b, '/workspace/overrides/expire', { id: String(rule.id) });
    expect(byForm.status, byForm.text).toBe(404);
    expect(byForm.text).not.toContain(secret);
    const byGql = await b.mutate(EXPIRE, { id: rule.id });
    expect(codeOf(byGql), show(byGql)).toBe('not_found');
    const unknown = await b.mutate(EXPIRE, { id: 2_000_000_000 });
    expect(byGql.body.errors[0].message.replace(String(rule.id), 'N')).toBe(
      unknown.body.errors[0].message.replace('2000000000', 'N'),
    ); // same as an unknown id
    const update = await b.mutate(UPDATE, { input: { id: rule.id, reason: 'b was here' } });
    expect(codeOf(update), show(update)).toBe('not_found');

    expect((await a.rules()).map((r) => [r.reason, r.expiredAt])).toEqual([[secret, null]]);
    expect((await a.score('192.0.2.60')).override?.rule_id).toBe(rule.id);
    expect((await b.score('192.0.2.60')).override).toBeNull(); // A's rule is A's alone
    // B's own rule on the same target is its own decision, which A's neither blocks nor shows through.
    expect(
      (
        await postForm(b, '/workspace/overrides', {
          target: '192.0.2.60',
          action: 'allow',
          points: '',
          reason: 'b own',
          note: '',
          expires_in: 'never',
        })
      ).status,
    ).toBe(303);
    expect((await b.score('192.0.2.60')).override).toMatchObject({ action: 'allow', reason: 'b own' });
    expect((await a.score('192.0.2.60')).override).toMatchObject({ rule_id: rule.id, reason: secret });
  });
});
