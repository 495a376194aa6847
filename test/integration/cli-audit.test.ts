import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { freshEnvironment, backendName, usingPostgres, type TestEnv } from '../helpers/backend.ts';
import { loadConfig } from '../../src/config.ts';
import { createApp, type App } from '../../src/app.ts';
import { createLogger } from '../../src/platform/log.ts';
import { Mailer } from '../../src/domain/mail/outbox.ts';

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../bin/risk-api.mjs');
type Line = Record<string, unknown>;

/**
 * Operator commands that change who may call or what is scored leave an audit line: in the server's log when the
 * server ran the command (the embedded database, through the admin socket), else on the CLI's own stderr, as JSON.
 * A created key's secret is never in it. `mail held` shows the messages kept without SMTP_URL, text included.
 */
describe(`risk-api CLI: audit lines and held mail (${backendName})`, () => {
  let env: TestEnv;
  const cli = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
        env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...env.env, LOG_LEVEL: 'info' },
        timeout: 60_000,
      });
      return { code: 0, stdout, stderr };
    } catch (e) {
      const failed = e as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };
  const auditOf = (text: string): Line[] =>
    text
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Line)
      .filter((l) => l.audit === true);
  beforeAll(async () => {
    env = await freshEnvironment();
  });
  afterAll(() => env?.cleanup());

  let created: { prefix: string; secret: string };

  it('writes the audit line of a command run in its own process to stderr, without the secret', async () => {
    const r = await cli('keys', 'create', '--workspace', 'audit-ws', '--name', 'ops', '--tier', 'developer', '--json');
    expect(r.code, r.stderr).toBe(0);
    created = JSON.parse(r.stdout);
    expect(auditOf(r.stderr)).toEqual([
      expect.objectContaining({
        level: 'info',
        msg: 'api key created',
        via: 'cli',
        command: 'keys create',
        outcome: 'ok',
        workspace: 'audit-ws',
        name: 'ops',
        tier: 'developer',
        prefix: created.prefix,
      }),
    ]);
    expect(r.stderr).not.toContain(created.secret.slice(created.prefix.length + 1));
    const refused = await cli('workspaces', 'set-tier', 'audit-ws', 'platinum');
    expect(refused.code).toBe(1);
    expect(auditOf(refused.stderr)).toEqual([
      expect.objectContaining({
        msg: 'workspaces set-tier refused',
        outcome: 'invalid_request',
        workspace: 'audit-ws',
        tier: 'platinum',
      }),
    ]);
    expect(auditOf((await cli('keys', 'list', '--json')).stderr)).toEqual([]); // reading changes nothing: no audit line
  });

  describe('while the server runs', () => {
    let app: App;
    const logs: string[] = [];
    beforeAll(async () => {
      app = await createApp(loadConfig(env.env), { log: createLogger('info', (l) => logs.push(l)) });
      await app.start(0, '127.0.0.1');
    });
    afterAll(() => app?.close());

    it('audits a revocation where it ran: the server (admin socket) or the CLI (PostgreSQL)', async () => {
      const r = await cli('keys', 'revoke', created.prefix, '--json');
      expect(r.code, r.stderr).toBe(0);
      const expected = expect.objectContaining({
        msg: 'api key revoked',
        outcome: 'ok',
        prefix: created.prefix,
        via: usingPostgres ? 'cli' : 'admin socket',
      });
      expect(usingPostgres ? auditOf(r.stderr) : auditOf(logs.join(''))).toEqual([expected]);
    });

    it('shows held mail with its text, newest first', async () => {
      const mailer = new Mailer(app.db.prisma, null, 'risk-api <no-reply@localhost>', createLogger('silent'));
      await mailer.enqueue({ to: 'first@example.com', subject: 'one', text: 'open https://example.test/first' });
      await mailer.enqueue({ to: 'second@example.com', subject: 'two', text: 'open https://example.test/second' });
      const held = JSON.parse((await cli('mail', 'held', '--json')).stdout);
      expect(held.map((m: Line) => [m.to, m.subject, m.text])).toEqual([
        ['second@example.com', 'two', 'open https://example.test/second'],
        ['first@example.com', 'one', 'open https://example.test/first'],
      ]);
      const human = await cli('mail', 'held');
      expect(human.stdout).toContain('to second@example.com: two\n\nopen https://example.test/second');
    });
  });
});
