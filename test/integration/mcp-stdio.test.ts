import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { call, mcpClient } from '../helpers/mcp.ts';

/**
 * `risk-api mcp --url URL`, the stdio bridge an agent host launches, driven by the SDK's StdioClientTransport;
 * and the MCP Inspector's CLI (the official inspector, v1: v2 needs Node 22) as a second, independent client,
 * over HTTP and over the bridge.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.join(ROOT, 'bin', 'risk-api.mjs');
// The Inspector CLI finds its own package.json relative to the working directory: run it from its build folder.
const INSPECTOR_DIR = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'inspector-cli', 'build');

type Run = { code: number | null; stdout: string; stderr: string };
function run(command: string, args: string[], env: Record<string, string | undefined>, cwd = ROOT): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const bridge = (args: string[], key: string | undefined) =>
  run(process.execPath, [BIN, 'mcp', ...args], { RISK_API_KEY: key });
/** stderr lines other than Node's own warnings. */
const lines = (stderr: string) =>
  stderr.split('\n').filter((l) => l && !l.includes('ExperimentalWarning') && !l.includes('--trace-warnings'));

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

describe(`MCP stdio bridge and the Inspector CLI (${backendName})`, () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s?.close());

  async function bridgedClient(key: string) {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--url', s.url],
      cwd: ROOT,
      stderr: 'pipe',
      env: { ...(process.env as Record<string, string>), RISK_API_KEY: key },
    });
    let stderr = '';
    transport.stderr?.on('data', (d) => (stderr += d));
    const client = new Client({ name: 'risk-api-tests (stdio)', version: '1.0.0' });
    await client.connect(transport);
    return { client, stderr: () => stderr };
  }

  it('carries every tool through the bridge: list, score_ip on the agent quota, writes, tool errors', async () => {
    const { secret } = await s.createKey('mcp-stdio', { tier: 'developer' });
    const { client } = await bridgedClient(secret);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('score_ip');
    const scored = await call(client, 'score_ip', { ip: '9.9.9.9' });
    expect(scored.body).toMatchObject({ ok: true, quota: { used_today: 1, daily_limit: 500 } });
    expect((await call(client, 'rate_ip', { ip: '9.9.9.9', rating: 1, note: 'via stdio' })).body.ok).toBe(true);
    const bad = await call(client, 'rate_ip', { ip: '9.9.9.9', rating: 2 });
    expect(bad.result.isError).toBe(true);
    expect(bad.body.details).toEqual([
      { field: 'rating', message: 'must be an integer: 1 (good), 0 (neutral) or -1 (bad)' },
    ]);
    expect((await call(client, 'get_quota')).body.quotas).toMatchObject({
      agent: { used_today: 1 },
      api: { used_today: 0 },
    });
    // What went through the bridge is the same workspace memory the HTTP surface reads.
    const http = await mcpClient(s.url, secret);
    expect(
      (await call(http, 'explore_subject', { kind: 'ipaddress', key: '9.9.9.9' })).body.ratings.items,
    ).toMatchObject([{ rating: 1, note: 'via stdio' }]);
    await http.close();
    await client.close();
  });

  it('exits 1 with one clear line when the key is refused or the server cannot be reached, 2 without a key or --url', async () => {
    const refused = await bridge(['--url', s.url], `rk_AAAAAAAA_${'a'.repeat(40)}`);
    expect(refused.code).toBe(1);
    expect(lines(refused.stderr)).toEqual([
      expect.stringMatching(/^error: the server refused RISK_API_KEY \(invalid_api_key: The API key is not valid/),
    ]);
    expect(refused.stdout).toBe('');
    const port = await closedPort();
    const unreachable = await bridge(['--url', `http://127.0.0.1:${port}`], 'rk_whatever');
    expect(unreachable.code).toBe(1);
    expect(lines(unreachable.stderr)).toEqual([`error: cannot reach http://127.0.0.1:${port}/mcp: ECONNREFUSED`]);
    const noKey = await bridge(['--url', s.url], undefined);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('RISK_API_KEY');
    expect((await bridge([], 'rk_x')).code).toBe(2);
  });

  it('answers the host with an error and exits 1 when the key is revoked mid-session', async () => {
    const doomed = await s.createKey('mcp-stdio', { name: 'doomed', tier: 'developer' });
    const { client, stderr } = await bridgedClient(doomed.secret);
    let closed = false;
    client.onclose = () => {
      closed = true;
    };
    expect((await call(client, 'get_quota')).body.ok).toBe(true);
    await s.app.db.prisma.apiKey.update({ where: { prefix: doomed.prefix }, data: { revokedAt: new Date() } });
    s.app.verifier.invalidate(doomed.prefix);
    await expect(call(client, 'get_quota')).rejects.toThrow(/answered 401: invalid_api_key/);
    await expect.poll(() => closed, { timeout: 300_000 }).toBe(true);
    expect(stderr()).toMatch(/error: .* answered 401: invalid_api_key/);
  });

  it('serves the MCP Inspector CLI as a second client, over HTTP and through the bridge', async () => {
    const { secret } = await s.createKey('mcp-inspector', { tier: 'developer' });
    const inspector = (args: string[]) =>
      run(process.execPath, [path.join(INSPECTOR_DIR, 'index.js'), ...args], { RISK_API_KEY: secret }, INSPECTOR_DIR);
    const http = [`${s.url}/mcp`, '--transport', 'http', '--header', `X-API-Key: ${secret}`];
    const listed = await inspector([...http, '--method', 'tools/list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).tools.map((t: { name: string }) => t.name)).toEqual([
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
    ]);
    const scored = await inspector([
      ...http,
      '--method',
      'tools/call',
      '--tool-name',
      'score_ip',
      '--tool-arg',
      'ip=1.1.1.1',
    ]);
    expect(scored.code, scored.stderr).toBe(0);
    expect(JSON.parse(scored.stdout).structuredContent).toMatchObject({
      ok: true,
      query: { ip: '1.1.1.1' },
      quota: { used_today: 1 },
    });
    const rated = await inspector([
      ...http,
      '--method',
      'tools/call',
      '--tool-name',
      'rate_ip',
      '--tool-arg',
      'ip=1.1.1.1',
      'rating=-1',
    ]);
    expect(JSON.parse(rated.stdout).structuredContent).toMatchObject({ ok: true, report: { rating: -1 } });
    const bridged = await inspector([
      process.execPath,
      BIN,
      'mcp',
      '--url',
      s.url,
      '--method',
      'tools/call',
      '--tool-name',
      'get_quota',
    ]);
    expect(bridged.code, bridged.stderr).toBe(0);
    expect(JSON.parse(bridged.stdout).structuredContent.quotas.agent).toMatchObject({
      used_today: 1,
      daily_limit: 500,
    });
  });
});
