import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlaneHarness } from '../web/harness.ts';
import { backendName } from '../helpers/backend.ts';
import { call, mcpClient } from '../helpers/mcp.ts';

/**
 * One subscription grants all three surfaces, and the control plane shows all three quotas: a key made in the
 * control plane works on /mcp (a same-origin browser call included), and score_ip's count appears on the usage
 * page and in /workspace/graphql beside the API's and the direct-report quota.
 */
describe(`agent quota in the control plane (${backendName})`, () => {
  let h: ControlPlaneHarness;
  beforeAll(async () => {
    h = await startControlPlane({ smtp: false });
  });
  afterAll(() => h?.close());

  it('shows the agent quota on the usage page and in /workspace/graphql, apart from the other two', async () => {
    const u = h.client();
    expect((await u.signUp('agent-owner@example.com')).status).toBe(303);
    const gql = async (query: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${h.url}/workspace/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          cookie: `rk_session=${u.cookies.get('rk_session')}`,
          ...headers,
        },
        body: JSON.stringify({ query }),
      });
      return (await res.json()) as { data: any; errors?: unknown };
    };
    const csrf = (await gql('{ csrfToken }')).data.csrfToken as string;
    const workspace = (await gql('{ me { workspace } }')).data.me.workspace as string;
    await h.app.db.prisma.workspace.update({ where: { name: workspace }, data: { tier: 'developer' } });
    const { secret } = (await gql('mutation { createApiKey(name: "agent") { secret } }', { 'x-csrf-token': csrf })).data
      .createApiKey;

    const client = await mcpClient(h.url, secret, { origin: h.url }); // BASE_URL's own origin: a browser on the control plane
    expect((await call(client, 'score_ip', { ip: '8.8.8.8' })).body.quota).toMatchObject({
      used_today: 1,
      daily_limit: 500,
    });
    await client.close();

    const usage = (
      await gql(
        '{ usage { tier { code agentDailyLimit } score { usedToday dailyLimit } directReport { usedToday dailyLimit } agent { usedToday dailyLimit remaining } } }',
      )
    ).data.usage;
    expect(usage).toEqual({
      tier: { code: 'developer', agentDailyLimit: 500 },
      score: { usedToday: 0, dailyLimit: 1000 },
      directReport: { usedToday: 0, dailyLimit: 100 },
      agent: { usedToday: 1, dailyLimit: 500, remaining: 499 },
    });
    const page = await u.request('/workspace/usage');
    expect(page.text).toContain('id="score-usage">0 / 1000');
    expect(page.text).toContain('id="report-usage">0 / 100');
    expect(page.text).toContain('id="agent-usage">1 / 500');
    const tiers = (await gql('{ tiers { code agentDailyLimit } }')).data.tiers;
    expect(tiers).toEqual([
      { code: 'free', agentDailyLimit: 0 },
      { code: 'developer', agentDailyLimit: 500 },
      { code: 'startup', agentDailyLimit: 10000 },
      { code: 'business', agentDailyLimit: 100000 },
      { code: 'enterprise', agentDailyLimit: 2000000 },
    ]);
    expect((await u.request('/workspace/subscription')).text).toContain('Agent (MCP) score calls per day');
  });
});
