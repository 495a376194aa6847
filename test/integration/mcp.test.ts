import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GraphQLClient, gql } from 'graphql-request';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { call, mcpClient } from '../helpers/mcp.ts';
import { TierCatalog } from '../../src/domain/metering/tiers.ts';

/**
 * The agent-protocol surface through the SDK's own Client over Streamable HTTP: the tool list, every tool, the
 * agent quota beside the API's, writebacks seen by REST and GraphQL, workspace isolation and argument errors.
 * (HTTP-level refusals: mcp-http.test.ts; the stdio bridge and the Inspector: mcp-stdio.test.ts.)
 */
const TOOLS = [
  'score_ip',
  'score_ips',
  'check_block',
  'rate_ip',
  'report_subject',
  'report_subjects',
  'get_dimensions',
  'explore_subject',
  'search_reports',
  'get_quota',
  'get_blocklist',
];

describe(`MCP tools over Streamable HTTP (${backendName})`, () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    await s.app.db.prisma.tier.create({
      data: {
        code: 'agent-tiny',
        name: 'Agent tiny',
        scoreEligible: true,
        dailyLimit: 1000,
        burstPerSecond: 100,
        directReportLimit: 5,
        agentDailyLimit: 3,
        priceCents: 0,
        position: 90,
      },
    });
    s.app.services.tiers = await TierCatalog.load(s.app.db.prisma);
  });
  afterAll(() => s?.close());

  const rest = (path: string, key: string, body: unknown) => s.post(path, body, { 'x-api-key': key });
  const quotas = async (client: Awaited<ReturnType<typeof mcpClient>>) => (await call(client, 'get_quota')).body.quotas;

  it('lists the ten tools, each with an input schema, an output schema and honest annotations', async () => {
    const { secret } = await s.createKey('mcp-list', { tier: 'developer' });
    const client = await mcpClient(s.url, secret);
    expect(client.getServerVersion()).toMatchObject({ name: 'risk-api' });
    expect(client.getInstructions()).toContain('score_ip');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS);
    for (const t of tools) {
      expect(t.inputSchema.type, t.name).toBe('object');
      expect(t.outputSchema?.type, t.name).toBe('object');
      expect(t.description!.length, t.name).toBeGreaterThan(80);
      expect(Object.keys(t.annotations ?? {}).sort(), t.name).toEqual([
        'destructiveHint',
        'idempotentHint',
        'openWorldHint',
        'readOnlyHint',
        'title',
      ]);
      expect(t.annotations!.destructiveHint, t.name).toBe(false);
      expect(t.annotations!.openWorldHint, t.name).toBe(false);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    // Reads are read-only and idempotent; score_ip counts and records a lookup, writes add rows: neither.
    for (const name of ['get_dimensions', 'explore_subject', 'search_reports', 'get_quota'])
      expect(byName[name]!.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    for (const name of ['score_ip', 'score_ips', 'check_block', 'rate_ip', 'report_subject', 'report_subjects'])
      expect(byName[name]!.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    expect(byName.report_subject!.inputSchema.required).toEqual(
      expect.arrayContaining(['kind', 'key', 'outcome_code']),
    );
    expect(Object.keys(byName.report_subject!.inputSchema.properties!)).toEqual(
      expect.arrayContaining([
        'kind',
        'key',
        'title',
        'summary',
        'details',
        'outcome_code',
        'severity',
        'tags',
        'related_subjects',
        'visibility',
        'namespace',
        'idempotency_key',
      ]),
    );
    expect(byName.rate_ip!.inputSchema.required).toEqual(['ip', 'rating']);
    await client.close();
  });

  it('score_ip answers the full score, counted once on the agent quota and never on the API quota', async () => {
    const { secret, prefix } = await s.createKey('mcp-score', { tier: 'developer', name: 'agent' });
    const client = await mcpClient(s.url, secret);
    const { result, body } = await call(client, 'score_ip', { ip: '9.9.9.9' });
    expect(result.isError).toBeFalsy();
    const viaRest = await rest('/risk_api/score/', secret, { ip: '9.9.9.9' });
    expect(Object.keys(body).sort()).toEqual(Object.keys(viaRest.body).sort());
    expect(body).toMatchObject({
      ok: true,
      endpoint: 'score',
      query: { ip: '9.9.9.9' },
      api_key: { name: 'agent', prefix },
    });
    expect(body.score).toEqual(viaRest.body.score);
    expect(body.score.dimensions.map((d: { code: string }) => d.code)).toEqual([
      'ip',
      'subnet',
      'isp',
      'asn',
      'org',
      'city',
      'region',
      'country',
    ]);
    expect(body.links).toEqual(viaRest.body.links);
    expect(body.workspace_memory).toEqual(viaRest.body.workspace_memory);
    expect(body.community_signal).toMatchObject({ ok: true, state: { label: expect.any(String) } });
    // Each quota counted its own call: the agent's is 500 a day on Developer, the API's 1,000.
    expect(body.quota).toEqual({
      daily_limit: 500,
      used_today: 1,
      remaining: 499,
      over_limit: false,
      resets_at: expect.stringMatching(/T00:00:00\.000Z$/),
    });
    expect(viaRest.body.quota).toMatchObject({ daily_limit: 1000, used_today: 1 });
    expect(await quotas(client)).toMatchObject({
      api: { used_today: 1, daily_limit: 1000 },
      agent: { used_today: 1, daily_limit: 500 },
      direct_report: { used_today: 0, daily_limit: 100 },
    });
    // The text block renders the verdict for clients that read only `content`.
    const text = (result.content as Array<{ type: string; text: string }>)[0]!.text;
    expect(text).toContain(`9.9.9.9: risk score ${body.score.overall_score}/100 (${body.score.overall_risk_level})`);
    expect(text).toContain('Agent quota: 1/500 used today');
    await client.close();
  });

  it('hard-blocks score_ip when the agent quota is used up (quota_exceeded, quota and reset time), counting exactly the limit under concurrency', async () => {
    const { secret } = await s.createKey('mcp-exhaust', { tier: 'agent-tiny' });
    const client = await mcpClient(s.url, secret);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => call(client, 'score_ip', { ip: `8.8.4.${i + 1}` })),
    );
    expect(answers.filter((a) => !a.result.isError)).toHaveLength(3);
    const refused = answers.filter((a) => a.result.isError);
    expect(refused).toHaveLength(3);
    for (const r of refused) {
      expect(r.body).toMatchObject({
        ok: false,
        error: 'quota_exceeded',
        quota: {
          daily_limit: 3,
          used_today: 3,
          remaining: 0,
          over_limit: true,
          resets_at: expect.stringMatching(/T00:00:00\.000Z$/),
        },
        retry_after_s: expect.any(Number),
      });
      expect(r.body.message).toMatch(/agent \(MCP\) quota of 3 calls is used up; it resets at .* \(00:00 UTC\)/);
    }
    const after = await call(client, 'score_ip', { ip: '8.8.4.9' });
    expect(after.body.error).toBe('quota_exceeded');
    expect((await quotas(client)).agent).toMatchObject({ used_today: 3, remaining: 0, over_limit: true });
    // The API's own quota is untouched and still answers.
    expect((await rest('/risk_api/score/', secret, { ip: '8.8.4.9' })).status).toBe(200);
    expect((await quotas(client)).api).toMatchObject({ used_today: 1 });
    await client.close();
  });

  it('refuses score_ip on the Free tier (tier_not_eligible) while the writebacks stay free', async () => {
    const { secret } = await s.createKey('mcp-free', { tier: 'free' });
    const client = await mcpClient(s.url, secret);
    const r = await call(client, 'score_ip', { ip: '1.1.1.1' });
    expect(r.result.isError).toBe(true);
    expect(r.body).toMatchObject({ ok: false, error: 'tier_not_eligible' });
    expect(r.body.message).toContain('The Free tier does not include score_ip');
    expect((await call(client, 'rate_ip', { ip: '1.1.1.1', rating: 0 })).body.ok).toBe(true);
    expect((await call(client, 'get_quota')).body.quotas.agent).toMatchObject({ daily_limit: 0, used_today: 0 });
    await client.close();
  });

  it('rate_ip and report_subject write what REST, GraphQL and the next score_ip read, and never count', async () => {
    const { secret } = await s.createKey('mcp-writes', { tier: 'developer' });
    const client = await mcpClient(s.url, secret);
    const rated = await call(client, 'rate_ip', { ip: '203.0.113.7', rating: -1, note: 'card testing' });
    expect(rated.body).toMatchObject({
      ok: true,
      endpoint: 'rate',
      quota: { counted: false, reason: 'free_endpoint' },
      report: { ip: '203.0.113.7', rating: -1 },
      idempotent_replayed: false,
    });
    const reported = await call(client, 'report_subject', {
      kind: 'ipaddress',
      key: '203.0.113.7',
      title: 'Checkout velocity',
      summary: '9 cards in ten minutes',
      details: 'seen twice',
      outcome_code: 'fraud_watch',
      severity: 'high',
      tags: ['Checkout'],
      visibility: 'workspace',
      namespace: 'Shop',
      related_subjects: [{ kind: 'email', key: 'mule@Example.com', role: 'account' }],
    });
    expect(reported.body).toMatchObject({
      ok: true,
      endpoint: 'report',
      query: { kind: 'ipaddress', key: '203.0.113.7', namespace: 'shop' },
      quota: { counted: false },
      report: {
        outcome_code: 'fraud_watch',
        severity: 'high',
        tags: ['checkout'],
        related_subjects: [{ kind: 'email', key: 'mule@example.com', role: 'account' }],
      },
    });
    const gqlClient = new GraphQLClient(`${s.url}/graphql`, { headers: { 'x-api-key': secret } });
    const seen =
      await gqlClient.request<any>(gql`{ ratingsOfIp(ip: "203.0.113.7", first: 5) { totalCount nodes { rating note } }
      subject(kind: email, key: "mule@example.com") { mentions(first: 5) { nodes { role report { databaseId title } } } } }`);
    expect(seen.ratingsOfIp).toEqual({ totalCount: 1, nodes: [{ rating: -1, note: 'card testing' }] });
    expect(seen.subject.mentions.nodes).toEqual([
      { role: 'account', report: { databaseId: reported.body.report.id, title: 'Checkout velocity' } },
    ]);
    const viaRest = await rest('/risk_api/score/', secret, { ip: '203.0.113.7' });
    expect(viaRest.body.workspace_memory).toMatchObject({
      ratings: { bad: 1 },
      reports: 1,
      last_rating: { note: 'card testing' },
    });
    const scored = await call(client, 'score_ip', { ip: '203.0.113.7' });
    expect(scored.body.workspace_memory).toMatchObject({
      ratings: { good: 0, neutral: 0, bad: 1 },
      last_rating: { rating: -1, note: 'card testing' },
      reports: 1,
    });
    expect(await quotas(client)).toMatchObject({ agent: { used_today: 1 }, api: { used_today: 1 } }); // the writes counted nothing
    await client.close();
  });

  it('takes an idempotency_key as REST takes the header: a retry replays, other arguments with the same key are refused', async () => {
    const { secret } = await s.createKey('mcp-idem', { tier: 'developer' });
    const client = await mcpClient(s.url, secret);
    const args = { kind: 'domain', key: 'shop.example', outcome_code: 'spam', idempotency_key: 'order-42' };
    const first = await call(client, 'report_subject', args);
    const again = await call(client, 'report_subject', args);
    expect(first.body.idempotent_replayed).toBe(false);
    expect(again.body).toMatchObject({ idempotent_replayed: true, report: { id: first.body.report.id } });
    const other = await call(client, 'report_subject', { ...args, outcome_code: 'scraping' });
    expect(other.body).toMatchObject({ ok: false, error: 'idempotency_key_reused' });
    const explored = await call(client, 'explore_subject', { kind: 'domain', key: 'shop.example' });
    expect(explored.body.reports.total_count).toBe(1);
    await client.close();
  });

  it('report_subjects writes a list as the bulk report does: each item alone, with its own idempotency_key', async () => {
    const { secret } = await s.createKey('mcp-bulk', { tier: 'developer' });
    const client = await mcpClient(s.url, secret);
    const { body: listed } = { body: (await client.listTools()).tools.find((t) => t.name === 'report_subjects')! };
    expect(listed.inputSchema.properties!.reports as { maxItems: number; items: { properties: object } }).toMatchObject(
      { maxItems: 1000 },
    );
    expect(
      Object.keys((listed.inputSchema.properties!.reports as { items: { properties: object } }).items.properties),
    ).toEqual(expect.arrayContaining(['kind', 'outcome_code', 'idempotency_key']));
    const reports = [
      { kind: 'ipaddress', key: '203.0.113.60', outcome_code: 'spam', idempotency_key: 'agent-1' },
      { kind: 'ipaddress', key: '203.0.113.61', outcome_code: 'nope' },
      'not a report',
      {
        kind: 'email',
        key: 'Mule@EXAMPLE.com',
        outcome_code: 'chargeback',
        related_subjects: [{ kind: 'ipaddress', key: '203.0.113.60', role: 'source_ip' }],
      },
    ];
    const first = await call(client, 'report_subjects', { reports });
    expect(first.result.isError).toBeFalsy();
    expect(first.body).toMatchObject({
      ok: true,
      endpoint: 'report_bulk',
      quota: { counted: false },
      totals: { lines: 4, created: 2, replayed: 0, errors: 2 },
    });
    const viaRest = await s.post('/risk_api/report/', reports[1], { 'x-api-key': secret });
    expect(first.body.results[1]).toEqual({
      line: 2,
      status: 'error',
      error: 'invalid_request',
      message: expect.any(String),
      details: viaRest.body.details,
    });
    expect(first.body.results[2]).toMatchObject({
      line: 3,
      status: 'error',
      details: [{ field: '(item)', message: 'must be a JSON object' }],
    });
    const again = await call(client, 'report_subjects', {
      reports: [reports[0], { ...(reports[0] as object), outcome_code: 'legitimate' }],
    });
    expect(again.body.results).toEqual([
      { line: 1, status: 'replayed', id: first.body.results[0].id },
      { line: 2, status: 'error', error: 'idempotency_key_reused', message: expect.any(String), details: [] },
    ]);
    expect((await rest('/risk_api/score/', secret, { ip: '203.0.113.60' })).body.workspace_memory.reports).toBe(2);
    // empty items: 1,001 real reports would pass MAX_BODY_BYTES (64 KB by default), which bounds every MCP request first
    const tooMany = await call(client, 'report_subjects', { reports: Array.from({ length: 1001 }, () => ({})) });
    expect(tooMany.body).toMatchObject({
      ok: false,
      error: 'invalid_request',
      details: [{ field: 'reports', message: 'must hold at most 1000 reports' }],
    });
    expect((await call(client, 'report_subjects', { reports: [] })).body.details).toEqual([
      { field: 'reports', message: 'must hold at least one report' },
    ]);
    await client.close();
  });

  it('get_dimensions answers what POST /risk_api/dimensions/ answers, for free', async () => {
    const { secret } = await s.createKey('mcp-dims', { tier: 'developer' });
    const client = await mcpClient(s.url, secret);
    const { body } = await call(client, 'get_dimensions', { ip: '1.0.0.1' });
    expect(body).toEqual((await rest('/risk_api/dimensions/', secret, { ip: '1.0.0.1' })).body);
    expect(body.dimensions).toHaveLength(8);
    expect((await quotas(client)).agent.used_today).toBe(0);
    await client.close();
  });

  it('explore_subject and search_reports walk the analyst graph with cursors', async () => {
    const { secret } = await s.createKey('mcp-graph', { tier: 'developer' });
    const client = await mcpClient(s.url, secret);
    for (let i = 0; i < 3; i++) {
      await call(client, 'report_subject', {
        kind: 'account',
        key: `acct-${i}`,
        title: `Takeover ${i}`,
        outcome_code: i === 2 ? 'spam' : 'account_takeover',
        tags: ['login'],
        related_subjects: [{ kind: 'ipaddress', key: '198.51.100.4', role: 'source_ip' }],
      });
    }
    await call(client, 'rate_ip', { ip: '198.51.100.4', rating: -1 });
    const first = await call(client, 'explore_subject', { kind: 'ipaddress', key: '198.51.100.4', first: 2 });
    expect(first.body).toMatchObject({
      ok: true,
      found: true,
      subject: { kind: 'ipaddress', key: '198.51.100.4' },
      reports: { total_count: 0, items: [] },
    });
    expect(first.body.mentions).toMatchObject({ total_count: 3, next_cursor: expect.any(String) });
    expect(first.body.mentions.items.map((m: any) => m.report.title)).toEqual(['Takeover 2', 'Takeover 1']);
    expect(first.body.ratings).toMatchObject({ total_count: 1, next_cursor: null, items: [{ rating: -1 }] });
    expect(first.body.related_subjects.map((r: any) => r.key).sort()).toEqual(['acct-0', 'acct-1', 'acct-2']);
    const rest2 = await call(client, 'explore_subject', {
      kind: 'ipaddress',
      key: '198.51.100.4',
      first: 2,
      mentions_after: first.body.mentions.next_cursor,
    });
    expect(rest2.body.mentions).toMatchObject({
      next_cursor: null,
      items: [{ role: 'source_ip', report: { title: 'Takeover 0' } }],
    });
    const missing = await call(client, 'explore_subject', { kind: 'domain', key: 'never.example' });
    expect(missing.body).toMatchObject({
      ok: true,
      found: false,
      subject: null,
      reports: { total_count: 0, items: [] },
    });

    const page1 = await call(client, 'search_reports', {
      filters: { outcome_code: ['account_takeover'], tags: ['login'] },
      first: 1,
    });
    expect(page1.body.reports).toMatchObject({
      total_count: 2,
      next_cursor: expect.any(String),
      items: [{ title: 'Takeover 1', subject: { kind: 'account', key: 'acct-1' } }],
    });
    const page2 = await call(client, 'search_reports', {
      filters: { outcome_code: ['account_takeover'], tags: ['login'] },
      first: 1,
      cursor: page1.body.reports.next_cursor,
    });
    expect(page2.body.reports).toMatchObject({ next_cursor: null, items: [{ title: 'Takeover 0' }] });
    const windowed = await call(client, 'search_reports', {
      filters: { from: '2000-01-01T00:00:00Z', text: 'takeover 2' },
    });
    expect(windowed.body.reports.items.map((r: any) => r.title)).toEqual(['Takeover 2']);
    await client.close();
  });

  it('shows workspace B nothing of what workspace A wrote, through any tool', async () => {
    const a = await mcpClient(s.url, (await s.createKey('mcp-iso-a', { tier: 'developer' })).secret);
    const b = await mcpClient(s.url, (await s.createKey('mcp-iso-b', { tier: 'developer' })).secret);
    await call(a, 'report_subject', {
      kind: 'email',
      key: 'secret@a.example',
      outcome_code: 'fraud_confirmed',
      related_subjects: [{ kind: 'ipaddress', key: '192.0.2.77', role: 'source_ip' }],
    });
    await call(a, 'rate_ip', { ip: '192.0.2.77', rating: -1, note: 'A only' });
    expect((await call(a, 'explore_subject', { kind: 'email', key: 'secret@a.example' })).body.found).toBe(true);
    expect((await call(b, 'explore_subject', { kind: 'email', key: 'secret@a.example' })).body).toMatchObject({
      found: false,
      subject: null,
    });
    expect((await call(b, 'explore_subject', { kind: 'ipaddress', key: '192.0.2.77' })).body).toMatchObject({
      found: false,
      ratings: { total_count: 0 },
    });
    expect((await call(b, 'search_reports', {})).body.reports).toEqual({
      total_count: 0,
      next_cursor: null,
      items: [],
    });
    expect((await call(b, 'score_ip', { ip: '192.0.2.77' })).body.workspace_memory).toEqual({
      ratings: { good: 0, neutral: 0, bad: 0 },
      last_rating: null,
      reports: 0,
    });
    const dims = (await call(b, 'get_dimensions', { ip: '192.0.2.77' })).body;
    expect(dims.dimensions.every((d: any) => d.workspace === null)).toBe(true);
    await a.close();
    await b.close();
  });

  it("answers bad arguments as tool errors with REST's field-by-field messages, never a protocol failure", async () => {
    const { secret } = await s.createKey('mcp-bad', { tier: 'developer' });
    const client = await mcpClient(s.url, secret);
    const badReport = {
      kind: 'planet',
      key: 'x',
      outcome_code: 'meh',
      tags: ['ok', '-bad'],
      related_subjects: [{ kind: 'ipaddress', key: '999.1.1.1' }],
      extra: 1,
    };
    const viaRest = await rest('/risk_api/report/', secret, badReport);
    expect(viaRest.status).toBe(400);
    const r = await call(client, 'report_subject', { ...badReport, idempotency_key: '' });
    expect(r.result.isError).toBe(true);
    expect(r.body).toMatchObject({ ok: false, error: 'invalid_request' });
    expect(r.body.details).toEqual([
      ...viaRest.body.details,
      { field: 'idempotency_key', message: 'must be 1-255 printable ASCII characters' },
    ]);
    expect(r.body.message).toBe(
      `The arguments of report_subject are invalid: check ${[...new Set(r.body.details.map((d: any) => d.field))].join(', ')}.`,
    );
    expect(JSON.parse((r.result.content as Array<{ text: string }>)[0]!.text)).toEqual(r.body);

    const badRate = { ip: 'not-an-ip', rating: 5 };
    expect((await call(client, 'rate_ip', badRate)).body.details).toEqual(
      (await rest('/risk_api/rate/', secret, badRate)).body.details,
    );
    expect((await call(client, 'score_ip', {})).body.details).toEqual([{ field: 'ip', message: 'is required' }]);
    expect((await call(client, 'score_ip', { ip: '1.1.1.1', idempotency_key: 'x' })).body.details).toEqual([
      { field: 'idempotency_key', message: 'is not a known field' },
    ]);
    expect((await call(client, 'get_quota', { verbose: true })).body.details).toEqual([
      { field: 'verbose', message: 'is not a known field' },
    ]);
    expect(
      (await call(client, 'explore_subject', { kind: 'asn', key: 'not a number', first: 0 })).body.details,
    ).toEqual([{ field: 'first', message: 'must be an integer from 1 to 50' }]);
    expect((await call(client, 'explore_subject', { kind: 'asn', key: 'not a number' })).body).toMatchObject({
      error: 'invalid_request',
      details: [{ field: 'key' }],
    });
    expect(
      (await call(client, 'search_reports', { cursor: 'bogus', filters: { severity: ['loud'], from: 'yesterday' } }))
        .body.details,
    ).toEqual([
      { field: 'filters.severity[0]', message: expect.stringContaining('must be one of') },
      { field: 'filters.from', message: 'must be an ISO 8601 timestamp, e.g. 2026-11-23T10:04:00Z' },
      { field: 'cursor', message: 'is not a cursor this server returned: pass a next_cursor from an earlier answer' },
    ]);
    expect(
      (await call(client, 'search_reports', { filters: { from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' } }))
        .body,
    ).toMatchObject({
      message: 'The arguments of search_reports are invalid: check filters.to.',
      details: [{ field: 'filters.to', message: 'from must be before to' }],
    });
    expect((await quotas(client)).agent.used_today).toBe(0); // no refused call was counted
    // Only a tool that does not exist is a protocol error (as the MCP specification has it).
    await expect(client.callTool({ name: 'drop_tables', arguments: {} })).rejects.toThrow(McpError);
    await client.close();
  });
});
