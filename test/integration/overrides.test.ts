/**
 * Workspace override rules (docs/api.md, overrides; docs/decisions/0021-override-rules-held-in-each-process.md):
 * precedence, expiry, the three actions in the score answer on REST and GraphQL, the audit trail, coded refusals
 * that change nothing, and another workspace neither seeing nor changing the rules; on both backends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GraphQLClient, gql } from 'graphql-request';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { OverrideCache } from '../../src/domain/overrides/rule-cache.ts';
import { call, mcpClient } from '../helpers/mcp.ts';
import { installStatementCounter } from '../helpers/statement-count.ts';

describe(`workspace override rules (${backendName})`, () => {
  const counter = installStatementCounter(); // before the server opens its database
  let s: TestServer;
  let a: Record<string, string>;
  let b: Record<string, string>;
  let gqlA: GraphQLClient;
  let secretA: string;
  beforeAll(async () => {
    s = await startTestServer({ KEY_CACHE_TTL_MS: '60000' });
    counter.watch(s.app.server);
    const keyA = await s.createKey('overrides-a', { tier: 'enterprise', name: 'ops key' });
    a = { 'x-api-key': keyA.secret };
    secretA = keyA.secret;
    b = { 'x-api-key': (await s.createKey('overrides-b', { tier: 'enterprise' })).secret };
    gqlA = new GraphQLClient(`${s.url}/graphql`, { headers: a });
  });
  afterAll(async () => {
    await s?.close();
    counter.restore();
  });

  const score = async (ip: string, headers = a) => {
    const r = await s.post('/risk_api/score/', { ip }, headers);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body;
  };
  const create = async (body: object, headers = a) => s.post('/risk_api/overrides/', body, headers);
  const created = async (body: object, headers = a) => {
    const r = await create(body, headers);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.rule as { id: number; target: string; target_kind: string };
  };
  const expire = (id: number, headers = a) => s.post('/risk_api/overrides/expire/', { id }, headers);
  const audit = async (headers = a, body: object = {}) => {
    const res = await fetch(`${s.url}/risk_api/overrides/audit/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/x-ndjson/);
    return {
      lines: (await res.text())
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
      next: res.headers.get('x-next-cursor'),
    };
  };

  it('deny, allow and adjust change the overall score and level; the dimensions stay as published', async () => {
    const ip = '198.51.100.10';
    const before = await score(ip);
    expect(before.override).toBeNull();
    const deny = await created({ target: ip, action: 'deny', reason: 'chargebacks' });
    const denied = await score(ip);
    expect(denied.score).toMatchObject({
      overall_score: Math.max(85, before.score.overall_score),
      overall_risk_level: 'critical',
    });
    expect(denied.score.dimensions).toEqual(before.score.dimensions);
    expect(denied.override).toMatchObject({
      rule_id: deny.id,
      target_kind: 'ip',
      target: ip,
      action: 'deny',
      points: 0,
      reason: 'chargebacks',
      expires_at: null,
      evidence_score: before.score.overall_score,
      evidence_level: before.score.overall_risk_level,
    });
    expect(denied.override.explanation).toContain(`rule ${deny.id}`);
    expect((await expire(deny.id)).status).toBe(200);
    await created({ target: ip, action: 'adjust', points: 40, reason: 'suspicious' });
    const adjusted = await score(ip);
    expect(adjusted.score.overall_score).toBe(Math.min(100, before.score.overall_score + 40));
    expect(adjusted.score.overall_risk_level).toBe('medium');
    expect(adjusted.override).toMatchObject({ action: 'adjust', points: 40 });
  });

  it('the most specific rule in force wins: IP, then the longest CIDR, then AS, then country; expired rules never apply', async () => {
    const ip = '8.8.8.8'; // a routed address: its AS and country are resolved (a documentation address has only the ip dimension)
    const dims = (await score(ip)).score.dimensions as Array<{ code: string; entity: { key: string } | null }>;
    const asn = dims.find((d) => d.code === 'asn')?.entity?.key;
    const country = dims.find((d) => d.code === 'country')?.entity?.key;
    expect(asn).toMatch(/^AS\d+$/);
    expect(country).toMatch(/^[A-Z]{2}$/);
    const rules: Array<{ id: number; target: string }> = [];
    rules.push(await created({ target: country!, action: 'adjust', points: 5, reason: 'country' }));
    rules.push(await created({ target: asn!, action: 'adjust', points: 6, reason: 'asn' }));
    rules.push(await created({ target: '8.8.0.0/16', action: 'adjust', points: 7, reason: 'wide block' }));
    rules.push(await created({ target: '8.8.8.0/24', action: 'adjust', points: 8, reason: 'narrow block' }));
    rules.push(await created({ target: ip, action: 'allow', reason: 'our office' }));
    for (let i = rules.length - 1; i >= 0; i--) {
      const answer = await score(ip);
      expect(answer.override?.rule_id, `step ${i}`).toBe(rules[i]!.id);
      expect((await expire(rules[i]!.id)).status).toBe(200);
    }
    expect((await score(ip)).override).toBeNull();
    // a rule past its own expiry does not apply either, and stops counting as active. Its life is long enough for the
    // score right after its creation to fall inside it on a busy machine; its end is waited for, not slept through.
    const expiresAt = Date.now() + 5_000;
    const soon = await created({
      target: '203.0.113.78',
      action: 'deny',
      reason: 'brief',
      expires_at: new Date(expiresAt).toISOString(),
    });
    expect((await score('203.0.113.78')).override?.rule_id).toBe(soon.id);
    await new Promise((r) => setTimeout(r, Math.max(0, expiresAt + 50 - Date.now())));
    expect((await score('203.0.113.78')).override).toBeNull();
    expect((await expire(soon.id)).body.error).toBe('override_not_active');
    const inactive = (await s.post('/risk_api/overrides/list/', { state: 'inactive', limit: 100 }, a)).body
      .rules as Array<{ id: number; active: boolean }>;
    expect(inactive.find((r) => r.id === soon.id)).toMatchObject({ active: false });
  });

  it('GraphQL scores with the same override and manages rules with cursors', async () => {
    const ip = '192.0.2.55';
    const made = await gqlA.request<{ createOverride: { id: number; author: { kind: string; label: string } } }>(gql`
      mutation { createOverride(input: { target: "192.0.2.55", action: deny, reason: "gql" }) { id author { kind label } } }`);
    expect(made.createOverride.author).toMatchObject({ kind: 'api_key' });
    expect(made.createOverride.author.label).toContain('ops key');
    const answer = await gqlA.request<{
      score: { score: { overallRiskLevel: string }; override: { ruleId: number; action: string } };
    }>(
      gql`
      query($ip: String!) { score(ip: $ip) { score { overallRiskLevel } override { ruleId action } } }`,
      { ip },
    );
    expect(answer.score.score.overallRiskLevel).toBe('critical');
    expect(answer.score.override).toEqual({ ruleId: made.createOverride.id, action: 'deny' });
    const batch = await gqlA.request<{
      scoreBatch: { results: Array<{ score: { override: { ruleId: number } | null } }> };
    }>(gql`
      query { scoreBatch(ips: ["192.0.2.55", "192.0.2.56"]) { results { score { override { ruleId } } } } }`);
    expect(batch.scoreBatch.results.map((r) => r.score.override?.ruleId ?? null)).toEqual([
      made.createOverride.id,
      null,
    ]);
    const page1 = await gqlA.request<{ overrides: { nodes: Array<{ id: number }>; nextCursor: string | null } }>(gql`
      query { overrides(state: all, first: 2) { nodes { id } nextCursor } }`);
    expect(page1.overrides.nodes).toHaveLength(2);
    const page2 = await gqlA.request<{ overrides: { nodes: Array<{ id: number }> } }>(
      gql`
      query($after: String) { overrides(state: all, first: 2, after: $after) { nodes { id } } }`,
      { after: page1.overrides.nextCursor },
    );
    expect(page2.overrides.nodes[0]!.id).toBeGreaterThan(page1.overrides.nodes[1]!.id);
    const trail = await gqlA.request<{
      overrideAudit: {
        nodes: Array<{ ruleId: number; action: string; surface: string; before: unknown; after: { target: string } }>;
      };
    }>(gql`
      query { overrideAudit(first: 100) { nodes { ruleId action surface before { id } after { target } } } }`);
    expect(trail.overrideAudit.nodes.find((n) => n.ruleId === made.createOverride.id)).toEqual({
      ruleId: made.createOverride.id,
      action: 'create',
      surface: 'graphql',
      before: null,
      after: { target: ip },
    });
    const rest = (await s.post('/risk_api/score/batch/', { ips: [ip] }, a)).body;
    expect(rest.results[0].override).toMatchObject({ rule_id: made.createOverride.id, action: 'deny' });
  });

  it('the MCP tool score_ip carries the override and says so in its text', async () => {
    const rule = await created({ target: '192.0.2.77', action: 'allow', reason: 'our scanner' });
    const client = await mcpClient(s.url, secretA);
    try {
      const { result, body } = await call(client, 'score_ip', { ip: '192.0.2.77' });
      expect(body.override).toMatchObject({ rule_id: rule.id, action: 'allow', reason: 'our scanner' });
      expect(body.score.overall_risk_level).toBe('minimal');
      expect(JSON.stringify(result.content)).toContain(`rule ${rule.id}`);
      const batch = await call(client, 'score_ips', { ips: ['192.0.2.77', '192.0.2.78'] });
      expect(batch.body.results.map((r: any) => r.override?.rule_id ?? null)).toEqual([rule.id, null]);
      expect(JSON.stringify(batch.result.content)).toContain(`your rule ${rule.id} (allow)`);
    } finally {
      await client.close();
    }
  });

  it('every change is in the audit trail with before and after; the export pages with a cursor', async () => {
    const rule = await created({
      target: 'AS64511',
      action: 'adjust',
      points: -20,
      reason: 'a customer network',
      note: 'ticket 42',
    });
    expect((await expire(rule.id)).status).toBe(200);
    const { lines } = await audit();
    const mine = lines.filter((l) => l.rule_id === rule.id);
    expect(mine.map((l) => l.action)).toEqual(['create', 'expire']);
    expect(mine[0]).toMatchObject({
      surface: 'rest',
      actor: { kind: 'api_key' },
      before: null,
      after: { target: 'AS64511', points: -20, note: 'ticket 42', expired_at: null },
    });
    expect(mine[1].before).toMatchObject({ expired_at: null });
    expect(mine[1].after.expired_at).toEqual(expect.any(String));
    const first = await audit(a, { limit: 1 });
    expect(first.lines).toHaveLength(1);
    const second = await audit(a, { limit: 1, cursor: first.next });
    expect(second.lines[0].id).toBeGreaterThan(first.lines[0].id);
    // beyond one read's batch: every entry once, in order, the cursor continuing after the last one sent
    const workspaceId = (await s.app.db.prisma.workspace.findUniqueOrThrow({ where: { name: 'overrides-a' } })).id;
    await s.app.db.prisma.overrideAudit.createMany({
      data: Array.from({ length: 1200 }, () => ({
        workspaceId,
        ruleId: rule.id,
        action: 'update',
        surface: 'rest',
        actorKind: 'api_key',
        actorId: 1,
        actorLabel: 'bulk',
      })),
    });
    const total = await s.app.db.prisma.overrideAudit.count({ where: { workspaceId } });
    const pageA = await audit(a, { limit: 1100 });
    expect(pageA.lines).toHaveLength(1100);
    expect(pageA.next).toBe(String(pageA.lines.at(-1).id));
    const pageB = await audit(a, { cursor: pageA.next });
    expect([pageB.lines.length, pageB.next]).toEqual([total - 1100, null]);
    const ids = [...pageA.lines, ...pageB.lines].map((l) => l.id);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(new Set(ids).size).toBe(total);
    // append-only: the database refuses to change an entry
    await expect(
      s.app.db.prisma.overrideAudit.updateMany({ where: { ruleId: rule.id }, data: { action: 'update' } }),
    ).rejects.toThrow();
  });

  it("updates a rule's reason, note and expiry (never what it does), recorded with before and after", async () => {
    const rule = await created({
      target: '198.51.100.60',
      action: 'deny',
      reason: 'first reason',
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const update = (body: object, headers = a) =>
      s.post('/risk_api/overrides/update/', { id: rule.id, ...body }, headers);
    const changed = await update({ reason: 'second reason', note: 'seen again', expires_at: null });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.rule).toMatchObject({
      id: rule.id,
      reason: 'second reason',
      note: 'seen again',
      expires_at: null,
      action: 'deny',
      active: true,
    });
    expect((await score('198.51.100.60')).override).toMatchObject({
      rule_id: rule.id,
      reason: 'second reason',
      expires_at: null,
    });
    const { lines } = await audit();
    const entry = lines.find((l) => l.rule_id === rule.id && l.action === 'update');
    expect(entry.before).toMatchObject({ reason: 'first reason', note: '', expires_at: expect.any(String) });
    expect(entry.after).toMatchObject({ reason: 'second reason', note: 'seen again', expires_at: null });
    const gqlChanged = await gqlA.request<{ updateOverride: { reason: string; expiresAt: string | null } }>(
      gql`
      mutation($id: Int!) { updateOverride(input: { id: $id, reason: "third reason", note: null }) { reason note expiresAt } }`,
      { id: rule.id },
    );
    expect(gqlChanged.updateOverride).toEqual({ reason: 'third reason', note: 'seen again', expiresAt: null });
    // refusals change nothing: no field, what the rule does, another workspace's rule, a rule no longer in force
    const auditBefore = await s.app.db.prisma.overrideAudit.count();
    expect((await update({})).body.error).toBe('invalid_request');
    expect((await update({ action: 'allow' })).body.error).toBe('invalid_request');
    expect((await update({ reason: ' ' })).body.error).toBe('invalid_request');
    expect((await update({ reason: 'b was here' }, b)).body.error).toBe('not_found');
    expect((await expire(rule.id)).status).toBe(200);
    const afterExpiry = await s.app.db.prisma.overrideAudit.count();
    expect(afterExpiry).toBe(auditBefore + 1);
    expect((await update({ reason: 'too late' })).body.error).toBe('override_not_active');
    expect(await s.app.db.prisma.overrideAudit.count()).toBe(afterExpiry);
    expect((await s.app.db.prisma.overrideRule.findUniqueOrThrow({ where: { id: rule.id } })).reason).toBe(
      'third reason',
    );
  });

  it('refuses invalid inputs with coded errors, changing nothing', async () => {
    const countBefore = await s.app.db.prisma.overrideRule.count();
    const auditBefore = await s.app.db.prisma.overrideAudit.count();
    const cases: Array<[object, string]> = [
      [{ target: '10.0.0.1/33', action: 'deny', reason: 'x' }, 'target'],
      [{ target: '10.0.0.1/24', action: 'deny', reason: 'x' }, 'target'],
      [{ target: '10.0.0.0/4', action: 'deny', reason: 'x' }, 'target'],
      [{ target: 'XX', action: 'deny', reason: 'x' }, 'target'],
      [{ target: 'AS0', action: 'deny', reason: 'x' }, 'target'],
      [{ target: 'not an ip', action: 'deny', reason: 'x' }, 'target'],
      [{ target: '10.0.0.1', action: 'block', reason: 'x' }, 'action'],
      [{ target: '10.0.0.1', action: 'deny', reason: '   ' }, 'reason'],
      [{ target: '10.0.0.1', action: 'deny' }, 'reason'],
      [{ target: '10.0.0.1', action: 'adjust', reason: 'x' }, 'points'],
      [{ target: '10.0.0.1', action: 'adjust', points: 101, reason: 'x' }, 'points'],
      [{ target: '10.0.0.1', action: 'allow', points: 5, reason: 'x' }, 'points'],
      [{ target: '10.0.0.1', action: 'deny', reason: 'x', expires_at: '2020-01-01T00:00:00Z' }, 'expires_at'],
      [{ target: '10.0.0.1', action: 'deny', reason: 'x', expires_at: 'tomorrow' }, 'expires_at'],
      [{ target: '10.0.0.1', action: 'deny', reason: 'x'.repeat(501) }, 'reason'],
      [{ target: '10.0.0.1', action: 'deny', reason: 'x', owner: 'me' }, ''],
    ];
    for (const [body, field] of cases) {
      const r = await create(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toBe('invalid_request');
      if (field)
        expect(
          r.body.details.map((d: { field: string }) => d.field),
          JSON.stringify(body),
        ).toContain(field);
    }
    expect((await s.post('/risk_api/overrides/expire/', { id: 'one' }, a)).body.error).toBe('invalid_request');
    // GraphQL judges by the same schema: the same codes and field names (camelCase there)
    const refused = await fetch(`${s.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...a },
      body: JSON.stringify({
        query: 'mutation { createOverride(input: { target: "10.0.0.1/24", action: adjust, reason: "x" }) { id } }',
      }),
    }).then((r) => r.json());
    expect(refused.errors[0].extensions.code).toBe('invalid_request');
    expect(refused.errors[0].extensions.details.map((d: { field: string }) => d.field).sort()).toEqual(['target']);
    expect((await s.post('/risk_api/overrides/list/', { limit: 101 }, a)).body.error).toBe('invalid_request');
    expect((await s.post('/risk_api/overrides/list/', { cursor: 'abc' }, a)).body.error).toBe('invalid_request');
    const dup = await created({ target: '10.9.9.9', action: 'deny', reason: 'x' });
    const again = await create({ target: '10.9.9.9', action: 'allow', reason: 'y' });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('override_exists');
    expect(await s.app.db.prisma.overrideRule.count()).toBe(countBefore + 1);
    expect(await s.app.db.prisma.overrideAudit.count()).toBe(auditBefore + 1);
    expect((await expire(dup.id)).status).toBe(200);
  });

  it('concurrent creates on one target: one rule, the rest override_exists, one audit entry', async () => {
    const auditBefore = await s.app.db.prisma.overrideAudit.count();
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => create({ target: '198.51.100.77', action: 'deny', reason: `race ${i}` })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    expect(answers.filter((r) => r.status === 409).every((r) => r.body.error === 'override_exists')).toBe(true);
    expect(await s.app.db.prisma.overrideRule.count({ where: { target: '198.51.100.77' } })).toBe(1);
    expect(await s.app.db.prisma.overrideAudit.count()).toBe(auditBefore + 1);
  });

  it('another workspace neither sees nor changes the rules, and its scores are not overridden', async () => {
    const rule = await created({ target: '198.51.100.200', action: 'deny', reason: 'only for A' });
    expect((await score('198.51.100.200', b)).override).toBeNull();
    const foreign = await expire(rule.id, b);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe('not_found');
    const listB = (await s.post('/risk_api/overrides/list/', { state: 'all' }, b)).body;
    expect(listB.rules).toEqual([]);
    expect((await audit(b)).lines).toEqual([]);
    expect((await score('198.51.100.200')).override?.rule_id).toBe(rule.id);
  });

  it('applies rules of every kind with no database statement on the score path (REST, batch, GraphQL)', async () => {
    const made = [
      await created({ target: '9.9.9.9', action: 'deny', reason: 'no-query ip' }),
      await created({ target: '9.9.8.0/24', action: 'adjust', points: 20, reason: 'no-query block' }),
      await created({ target: '2001:db8:77::/48', action: 'allow', reason: 'no-query v6' }),
    ];
    await score('192.0.2.200'); // the key is verified (and cached) by a first call
    const answers: any[] = [];
    const statements = await counter.record(async () => {
      answers.push(await score('9.9.9.9'), await score('9.9.8.1'), await score('2001:db8:77::1'));
      answers.push((await s.post('/risk_api/score/batch/', { ips: ['9.9.9.9', '9.9.8.1'] }, a)).body);
      answers.push(await gqlA.request<any>(gql`{ score(ip: "9.9.9.9") { override { ruleId } } }`));
    });
    expect(statements, 'statements sent while answering score').toEqual([]);
    expect(answers.slice(0, 3).map((x) => x.override.rule_id)).toEqual(made.map((r) => r.id));
    expect(answers[3].results.map((r: any) => r.override.rule_id)).toEqual([made[0]!.id, made[1]!.id]);
    expect(answers[4].score.override.ruleId).toBe(made[0]!.id);
    expect(
      await counter.record(async () => {
        await expire(made[0]!.id);
      }),
    ).not.toEqual([]); // the counter does see a request's statements
  });

  it('another process learns the rules by following the table, with no query on the score path', async () => {
    const rule = await created({ target: '2001:db8:5::/48', action: 'deny', reason: 'v6 block' });
    const copy = new OverrideCache(s.app.db.prisma);
    await copy.catchUp();
    const h = s.app.services.network.resolve('2001:db8:5::1');
    const workspaceId = (await s.app.db.prisma.workspace.findUniqueOrThrow({ where: { name: 'overrides-a' } })).id;
    expect(copy.find(workspaceId, h)?.id).toBe(rule.id);
    expect(copy.find(workspaceId + 1000, h)).toBeNull();
    expect((await expire(rule.id)).status).toBe(200);
    await copy.catchUp();
    expect(copy.find(workspaceId, h)).toBeNull();
  });
});
