import { loadConfig } from '../../src/config.ts';
import { createApp, type App } from '../../src/app.ts';
import { createLogger } from '../../src/platform/log.ts';
import { createApiKey } from '../../src/domain/access/keys.ts';
import { freshEnvironment, type TestEnv } from './backend.ts';
import { sharedNetwork } from './network.ts';
import { assertContract } from './openapi-contract.ts';

/** A real server on a free loopback port over a fresh database; logs captured in memory. */
export type TestServer = {
  url: string;
  app: App;
  env: TestEnv;
  logs: string[];
  createKey(workspace: string, opts?: { name?: string; tier?: string }): Promise<{ prefix: string; secret: string }>;
  post(
    path: string,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; headers: Headers; body: any }>;
  close(): Promise<void>;
};

export async function startTestServer(extraEnv: Record<string, string> = {}): Promise<TestServer> {
  const env = await freshEnvironment(extraEnv);
  const config = loadConfig({ ...env.env, LOG_LEVEL: 'debug' });
  const logs: string[] = [];
  const app = await createApp(config, {
    log: createLogger('debug', (line) => logs.push(line)),
    network: sharedNetwork(),
  });
  const url = await app.start(0, '127.0.0.1');
  return {
    url,
    app,
    env,
    logs,
    createKey: (workspace, opts = {}) =>
      createApiKey(app.db.prisma, app.pepper, { workspace, name: opts.name ?? 'test key', tier: opts.tier }),
    async post(path, body, headers = {}) {
      const res = await fetch(url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      // Every answer a test gets here is checked against openapi.json (routes outside it are not).
      assertContract({ method: 'POST', path: path.split('?', 1)[0]!, status: res.status, headers: res.headers, text });
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON: keep the text so a failure shows it */
      }
      return { status: res.status, headers: res.headers, body: parsed };
    },
    async close() {
      await app.close();
      await env.cleanup();
    },
  };
}
