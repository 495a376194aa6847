import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import path from 'node:path';
import { freshEnvironment, backendName, type TestEnv } from '../helpers/backend.ts';
import { loadConfig } from '../../src/config.ts';
import { createApp, type App } from '../../src/app.ts';
import { createLogger } from '../../src/platform/log.ts';

/**
 * `feeds import` of a broken download (an HTML error page) must leave the feed it would replace as it was and
 * exit non-zero; so must a file with more than 10% bad lines, unless --allow-partial; a re-import keeps the
 * weight unless --weight is given; --dry-run changes nothing. In the CLI's own process, and inside a running
 * server (embedded: the CLI hands the parsed entries over the admin socket).
 */
const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../bin/risk-api.mjs');
const GOOD = `${Array.from({ length: 200 }, (_, i) => `10.7.${i}.0/24`).join('\n')}\n`;
const HTML_ERROR_PAGE =
  '<!DOCTYPE html>\n<html><head><title>503 Service Unavailable</title></head>\n<body><h1>Service Unavailable</h1></body>\n</html>\n';
const PARTIAL = `${Array.from({ length: 160 }, (_, i) => `10.8.${i}.1`)
  .concat(Array.from({ length: 40 }, (_, i) => `bogus ${i}`))
  .join('\n')}\n`;

describe(`risk-api feeds import refuses a broken download (${backendName})`, () => {
  let env: TestEnv;
  const file = (name: string, text: string) => {
    const p = path.join(env.dataDir, name);
    writeFileSync(p, text);
    return p;
  };
  const cli = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
        env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...env.env },
        timeout: 60_000,
      });
      return { code: 0, stdout, stderr };
    } catch (e) {
      const failed = e as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };
  const vendor = async () =>
    (JSON.parse((await cli('feeds', 'list', '--json')).stdout) as Array<Record<string, unknown>>).find(
      (f) => f.name === 'vendor',
    );

  beforeAll(async () => {
    env = await freshEnvironment();
  });
  afterAll(() => env?.cleanup());

  it('imports a good list with a weight', async () => {
    const r = await cli('feeds', 'import', file('good.txt', GOOD), '--name', 'vendor', '--weight', '0.4', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      name: 'vendor',
      entries: 200,
      errors: 0,
      replaced: false,
      weight: 0.4,
    });
  });

  it('refuses an HTML error page: exit 1, the reason and its bad lines on stderr, the feed unchanged', async () => {
    const before = await vendor();
    const r = await cli('feeds', 'import', file('page.html', HTML_ERROR_PAGE), '--name', 'vendor', '--allow-partial');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      'error: The file has no valid entry: 4 bad lines (first bad line 1: "<!DOCTYPE html>"). Nothing was changed',
    );
    expect(r.stderr).toContain('  line 4: ');
    expect(await vendor()).toEqual(before);
    expect(before).toMatchObject({ entries: 200, weight: 0.4 });
  });

  it('refuses 20% bad lines unless --allow-partial, and keeps the weight when none is given', async () => {
    const partial = file('partial.txt', PARTIAL);
    const refused = await cli('feeds', 'import', partial, '--name', 'vendor');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error: 40 of 200 lines holding data are bad, more than 10%');
    expect((await vendor())!.entries).toBe(200);
    const allowed = await cli('feeds', 'import', partial, '--name', 'vendor', '--allow-partial');
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain(
      'Replaced feed "vendor" (it held 200): 160 networks from 200 lines, 40 bad lines, weight 0.4.',
    );
    expect(await vendor()).toMatchObject({ entries: 160, errors: 40, weight: 0.4 });
  });

  it('--dry-run says what would happen and changes nothing', async () => {
    const before = await vendor();
    const r = await cli('feeds', 'import', file('good.txt', GOOD), '--name', 'vendor', '--weight', '0.9', '--dry-run');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'Dry run: would replace feed "vendor" (it held 160): 200 networks from 200 lines, 0 bad lines, weight 0.9. Nothing was changed.',
    );
    expect(await vendor()).toEqual(before);
  });

  it('lists feeds as a table for people and as JSON with --json', async () => {
    const table = await cli('feeds', 'list');
    expect(table.code, table.stderr).toBe(0);
    const [header, row] = table.stdout.trimEnd().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['NAME', 'FORMAT', 'WEIGHT', 'ENTRIES', 'BAD LINES', 'IMPORTED', 'SOURCE']);
    expect(row!.split(/\s{2,}/)).toEqual([
      'vendor',
      'plain',
      '0.4',
      '160',
      '40',
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/),
      path.join(env.dataDir, 'partial.txt'),
    ]);
    expect(JSON.parse((await cli('feeds', 'list', '--json')).stdout)).toEqual([
      expect.objectContaining({ name: 'vendor', entries: 160, errors: 40 }),
    ]);
  });

  it('writes progress lines to stderr when it is not a terminal, then the line that it writes', async () => {
    const long = file(
      'long.txt',
      `${Array.from({ length: 30_000 }, (_, i) => `10.9.${i >> 8}.${i & 255}`).join('\n')}\n`,
    );
    const r = await cli('feeds', 'import', long, '--name', 'long');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('\r');
    // (without the warning that the test's file in DATA_DIR was readable by others)
    const lines = r.stderr
      .split('\n')
      .filter((l) => l && !/ExperimentalWarning|--trace-warnings|^warning: DATA_DIR/.test(l));
    expect(lines.length).toBeGreaterThan(2);
    for (const l of lines.slice(0, -2)) expect(l).toMatch(new RegExp(`^reading ${long}: \\d+% \\([\\d,]+ lines\\)$`));
    expect(lines.slice(-2)).toEqual([`reading ${long}: 100% (30,000 lines)`, 'writing 30,000 networks…']);
    expect(r.stdout).toContain('Imported feed "long": 30000 networks');
    expect((await cli('feeds', 'remove', 'long')).stdout).toBe(
      'Removed feed "long" (30000 networks); its listings leave the next publication.\n',
    );
  });

  describe('while the server runs', () => {
    let app: App;
    beforeAll(async () => {
      app = await createApp(loadConfig(env.env), { log: createLogger('silent') });
      await app.start(0, '127.0.0.1');
    });
    afterAll(() => app?.close());

    it('refuses the HTML error page alike and leaves the feed unchanged', async () => {
      const before = await vendor();
      const r = await cli('feeds', 'import', file('page.html', HTML_ERROR_PAGE), '--name', 'vendor', '--weight', '1');
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('The file has no valid entry');
      expect(await vendor()).toEqual(before);
      const dry = await cli('feeds', 'import', file('good.txt', GOOD), '--name', 'vendor', '--dry-run', '--json');
      expect(dry.code, dry.stderr).toBe(0);
      expect(JSON.parse(dry.stdout)).toMatchObject({ entries: 200, previousEntries: 160, weight: 0.4, dryRun: true });
      expect(await vendor()).toEqual(before);
    });
  });
});
