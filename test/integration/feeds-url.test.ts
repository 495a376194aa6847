import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { freshEnvironment, backendName, type TestEnv } from '../helpers/backend.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createApp, type App } from '../../src/app.ts';
import { createLogger } from '../../src/platform/log.ts';
import { runCommand, type CommandContext } from '../../src/transport/admin/commands.ts';
import type { FeedListing } from '../../src/domain/feeds/schedule.ts';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.ts';
import type { FetchResult } from '../../src/domain/feeds/fetch-feed.ts';
import { parseFeedText } from '../../src/domain/feeds/parse.ts';

/**
 * Feeds fetched from URLs, against a local HTTP server: a 200 is imported; a conditional request answered 304
 * (ETag, Last-Modified) keeps the version held; oversized (declared or streamed), slow, failing and
 * bad-content answers keep the previous version and are recorded as the last fetch; redirects are followed
 * within bounds; the running server fetches a due feed by itself; `feeds list` shows it all. In the CLI's own
 * process and through the running server's admin socket (embedded).
 */
const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../bin/risk-api.mjs');
const LIST_A = `${Array.from({ length: 120 }, (_, i) => `10.20.${i}.0/24`).join('\n')}\n`;
const LIST_B = `${Array.from({ length: 80 }, (_, i) => `10.30.${i}.7`).join('\n')}\n`;
const HTML = '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n<body>Bad Gateway</body>\n</html>\n';
const MAX_BYTES = 8192;

/** The feed provider: what each path answers can be changed by the test. */
function provider() {
  const state = {
    body: LIST_A,
    etag: '"a"',
    lastModified: 'Tue, 24 Nov 2026 10:00:00 GMT',
    hits: new Map<string, number>(),
    conditional: [] as string[],
  };
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
    '/etag.txt': (req, res) => {
      if (req.headers['if-none-match'] === state.etag) {
        state.conditional.push('if-none-match');
        res.writeHead(304, { etag: state.etag });
        res.end();
        return;
      }
      res.writeHead(200, { etag: state.etag, 'content-type': 'text/plain' });
      res.end(state.body);
    },
    '/last-modified.txt': (req, res) => {
      if (req.headers['if-modified-since'] === state.lastModified) {
        state.conditional.push('if-modified-since');
        res.writeHead(304);
        res.end();
        return;
      }
      res.writeHead(200, { 'last-modified': state.lastModified });
      res.end(state.body);
    },
    '/plain.txt': (_req, res) => {
      res.writeHead(200);
      res.end(state.body);
    },
    '/declared-big.txt': (_req, res) => {
      res.writeHead(200, { 'content-length': String(MAX_BYTES * 4) });
      res.end('1.2.3.4\n'.repeat(MAX_BYTES / 2));
    },
    '/streamed-big.txt': (_req, res) => {
      res.writeHead(200);
      for (let i = 0; i < 8; i++) res.write('10.1.1.1\n'.repeat(512));
      res.end();
    },
    '/slow.txt': (_req, res) => {
      res.writeHead(200);
      res.write('10.2.2.2\n'); /* and never ends */
    },
    '/html': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(HTML);
    },
    '/missing': (_req, res) => {
      res.writeHead(404);
      res.end('not here');
    },
    '/moved': (_req, res) => {
      res.writeHead(302, { location: '/plain.txt' });
      res.end();
    },
    '/loop': (_req, res) => {
      res.writeHead(301, { location: '/loop' });
      res.end();
    },
  };
  const server: Server = createServer((req, res) => {
    const route = new URL(req.url!, 'http://x').pathname;
    state.hits.set(route, (state.hits.get(route) ?? 0) + 1);
    (routes[route] ?? routes['/missing']!)(req, res);
  });
  return { server, state };
}

describe(`feeds fetched from URLs (${backendName})`, () => {
  let env: TestEnv;
  let config: Config;
  let app: App;
  let ctx: CommandContext;
  const feeds = provider();
  let base = '';
  const cmd = <T>(name: string, args: Record<string, unknown>) => runCommand(name, args, ctx) as Promise<T>;
  const listed = async (name: string) => (await cmd<FeedListing[]>('feeds list', {})).find((f) => f.name === name)!;
  const cli = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
        env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...env.env },
        timeout: 120_000,
      });
      return { code: 0, stdout, stderr };
    } catch (e) {
      const failed = e as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };

  beforeAll(async () => {
    await new Promise<void>((resolve) => feeds.server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(feeds.server.address() as { port: number }).port}`;
    env = await freshEnvironment({
      FEED_FETCH_MAX_BYTES: String(MAX_BYTES),
      FEED_FETCH_TIMEOUT_MS: '1500',
      FEED_CHECK_INTERVAL_MS: '200',
      PUBLISH_INTERVAL_MS: '0',
    });
    config = loadConfig(env.env);
    app = await createApp(config, { log: createLogger('silent') });
    await app.start(0, '127.0.0.1');
    ctx = {
      db: app.db,
      dataDir: env.dataDir,
      feedFetch: config.feedFetch,
      pepper: app.pepper,
      network: async () => app.services.network,
      publicationsKept: 3,
    };
  });
  afterAll(async () => {
    await app?.close();
    await env?.cleanup();
    feeds.server.closeAllConnections();
    feeds.server.close();
  });

  it('feeds add imports at once (through the running server), then a conditional request answered 304 keeps the version', async () => {
    const added = await cli('feeds', 'add', 'vendor', '--url', `${base}/etag.txt`, '--every', '1h', '--weight', '0.6');
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(`Feed "vendor" is fetched from ${base}/etag.txt every 1h.`);
    expect(added.stdout).toMatch(/Fetched .*: HTTP 200, imported, 120 entries\./);
    const again = await cmd<FetchResult>('feeds fetch', { name: 'vendor' });
    expect(again).toMatchObject({ outcome: 'not_modified', httpStatus: 304, entries: 120, error: null });
    expect(feeds.state.conditional).toEqual(['if-none-match']);
    expect(await listed('vendor')).toMatchObject({
      entries: 120,
      weight: 0.6,
      source: `${base}/etag.txt`,
      schedule: { every: '1h', lastFetch: { outcome: 'not_modified', httpStatus: 304 } },
    });
    const reweighed = await cmd<FetchResult>('feeds add', {
      name: 'vendor',
      url: `${base}/etag.txt`,
      every: '2h',
      weight: 0.25,
    });
    expect(reweighed).toMatchObject({ outcome: 'not_modified', schedule: { every: '2h', weight: 0.25 } });
    expect(await listed('vendor')).toMatchObject({ entries: 120, weight: 0.25 });
  });

  it('a new version behind a new ETag replaces the entries; Last-Modified works alike; the same bytes again replace nothing', async () => {
    feeds.state.body = LIST_B;
    feeds.state.etag = '"b"';
    expect(await cmd<FetchResult>('feeds fetch', { name: 'vendor' })).toMatchObject({
      outcome: 'imported',
      httpStatus: 200,
      entries: 80,
    });
    expect(
      await cmd<FetchResult>('feeds add', { name: 'dated', url: `${base}/last-modified.txt`, every: '30m' }),
    ).toMatchObject({ outcome: 'imported', entries: 80 });
    expect(await cmd<FetchResult>('feeds fetch', { name: 'dated' })).toMatchObject({
      outcome: 'not_modified',
      httpStatus: 304,
    });
    expect(feeds.state.conditional).toContain('if-modified-since');
    expect(await cmd<FetchResult>('feeds add', { name: 'bare', url: `${base}/plain.txt`, every: '1d' })).toMatchObject({
      outcome: 'imported',
      entries: 80,
    });
    const importedAt = (await listed('bare')).importedAt;
    expect(await cmd<FetchResult>('feeds fetch', { name: 'bare' })).toMatchObject({
      outcome: 'unchanged',
      httpStatus: 200,
      entries: 80,
    });
    expect((await listed('bare')).importedAt).toEqual(importedAt);
  });

  /** Points `vendor` at `path`, fetches, and checks the previous 80 entries stayed. */
  const keepsVersion = async (urlPath: string) => {
    const r = await cmd<FetchResult>('feeds add', { name: 'vendor', url: `${base}${urlPath}`, every: '1h' });
    const feed = await listed('vendor');
    expect(feed.entries).toBe(80);
    expect(await app.db.prisma.feedEntry.count({ where: { feed: { name: 'vendor' } } })).toBe(80);
    expect(feed.schedule!.lastFetch).toMatchObject({ outcome: r.outcome, error: r.error });
    return r;
  };

  it('a body over FEED_FETCH_MAX_BYTES, declared or streamed, is stopped and the version kept', async () => {
    expect(await keepsVersion('/declared-big.txt')).toMatchObject({
      outcome: 'failed',
      httpStatus: 200,
      error: expect.stringContaining(`more than the ${MAX_BYTES}-byte limit (FEED_FETCH_MAX_BYTES)`),
    });
    expect(await keepsVersion('/streamed-big.txt')).toMatchObject({
      outcome: 'failed',
      error: expect.stringContaining(`larger than the ${MAX_BYTES}-byte limit`),
    });
  });

  it('a server that stalls is cut at FEED_FETCH_TIMEOUT_MS, and the version kept', async () => {
    expect(await keepsVersion('/slow.txt')).toMatchObject({
      outcome: 'failed',
      error: 'timed out after 1.5 s (FEED_FETCH_TIMEOUT_MS)',
    });
  });

  it('an HTML error page is refused by the import rules; an HTTP error fails; both keep the version and retry sooner', async () => {
    const html = await keepsVersion('/html');
    expect(html).toMatchObject({
      outcome: 'refused',
      httpStatus: 200,
      error: expect.stringContaining('The file has no valid entry'),
    });
    expect(html.badLines[0]).toMatchObject({ line: 1, text: '<!DOCTYPE html>' });
    const missing = await keepsVersion('/missing');
    expect(missing).toMatchObject({ outcome: 'failed', httpStatus: 404, error: 'HTTP 404 Not Found' });
    expect(missing.schedule.nextFetchAt.getTime() - missing.at.getTime()).toBe(600_000);
  });

  it('follows a redirect; stops a redirect loop; refuses non-http URLs and intervals under a minute', async () => {
    expect(await cmd<FetchResult>('feeds add', { name: 'moved', url: `${base}/moved`, every: '1h' })).toMatchObject({
      outcome: 'imported',
      entries: 80,
    });
    expect((await listed('moved')).source).toBe(`${base}/plain.txt`);
    expect(await cmd<FetchResult>('feeds add', { name: 'loop', url: `${base}/loop`, every: '1h' })).toMatchObject({
      outcome: 'failed',
      httpStatus: 301,
      error: 'more than 5 redirects',
    });
    await expect(cmd('feeds add', { name: 'ftp', url: 'ftp://example.com/list', every: '1h' })).rejects.toThrow(
      'only http and https URLs are fetched',
    );
    await expect(cmd('feeds add', { name: 'fast', url: `${base}/plain.txt`, every: '30s' })).rejects.toThrow(
      'from 1m to 30d',
    );
    await expect(cmd('feeds add', { name: 'creds', url: `http://user:pw@127.0.0.1/x`, every: '1h' })).rejects.toThrow(
      'user name or password',
    );
    expect((await cmd<FeedListing[]>('feeds list', {})).map((f) => f.name)).not.toContain('ftp');
  });

  it('a file import into a feed fetched from a URL is refused', async () => {
    await expect(
      cmd('feeds import', {
        name: 'moved',
        format: 'plain',
        source: 'x.txt',
        parsed: parseFeedText('10.0.0.1\n', 'plain'),
      }),
    ).rejects.toThrow(`Feed "moved" is fetched from ${base}/moved`);
  });

  it('the running server fetches a feed when it is due', async () => {
    feeds.state.body = LIST_A;
    feeds.state.etag = '"a2"';
    const hits = feeds.state.hits.get('/etag.txt') ?? 0;
    await cmd('feeds add', { name: 'vendor', url: `${base}/etag.txt`, every: '1h' });
    expect((await listed('vendor')).entries).toBe(120);
    await app.db.prisma.feedSchedule.update({
      where: { name: 'vendor' },
      data: { nextFetchAt: new Date(Date.now() - 1000) },
    });
    for (let i = 0; i < 300 && (feeds.state.hits.get('/etag.txt') ?? 0) < hits + 2; i++) await sleep(100);
    let fetch = (await listed('vendor')).schedule!;
    for (let i = 0; i < 100 && fetch.lastFetch?.outcome !== 'not_modified'; i++) {
      await sleep(100);
      fetch = (await listed('vendor')).schedule!;
    }
    expect(feeds.state.hits.get('/etag.txt')).toBe(hits + 2);
    expect(fetch.lastFetch).toMatchObject({ outcome: 'not_modified', httpStatus: 304 });
    expect(fetch.nextFetchAt.getTime()).toBeGreaterThan(Date.now() + 3500_000);
  });

  it('feeds list shows the last fetch to people and to machines, and /metrics to Prometheus', async () => {
    const human = await cli('feeds', 'list');
    expect(human.code, human.stderr).toBe(0);
    const [header, ...lines] = human.stdout.trimEnd().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['NAME', 'FORMAT', 'WEIGHT', 'ENTRIES', 'BAD LINES', 'IMPORTED', 'SOURCE']);
    expect(lines.find((l) => l.startsWith('loop '))!.split(/\s{2,}/)).toEqual([
      'loop',
      'plain',
      '1',
      '0',
      '0',
      'never',
      `${base}/loop`,
    ]);
    expect(human.stdout).toMatch(
      /^loop: every 1h, next fetch \d{4}-\d\d-\d\d \d\d:\d\d UTC; last fetch .*: HTTP 301, failed \(the feed keeps what it held\) — more than 5 redirects$/m,
    );
    const json = JSON.parse((await cli('feeds', 'list', '--json')).stdout) as FeedListing[];
    expect(json.find((f) => f.name === 'vendor')).toMatchObject({
      entries: 120,
      schedule: { url: `${base}/etag.txt`, everySeconds: 3600, lastFetch: { outcome: 'not_modified' } },
    });
    const { text } = await app.metrics.exposition();
    const families = parsePrometheusText(text);
    const outcomes = families
      .get('risk_feed_fetch_last_outcome')!
      .samples.map((x) => `${x.labels.feed} ${x.labels.outcome} ${x.value}`);
    expect(outcomes.sort()).toEqual(
      json
        .filter((f) => f.schedule?.lastFetch)
        .map((f) => `${f.name} ${f.schedule!.lastFetch!.outcome} 1`)
        .sort(),
    );
    expect(outcomes).toHaveLength(5);
    const vendorSuccess = sampleValue(
      families,
      'risk_feed_fetch_last_success_timestamp_seconds',
      'risk_feed_fetch_last_success_timestamp_seconds',
      { feed: 'vendor' },
    )!;
    expect(Math.abs(vendorSuccess - Date.now() / 1000)).toBeLessThan(600);
    expect(
      sampleValue(
        families,
        'risk_feed_fetch_last_success_timestamp_seconds',
        'risk_feed_fetch_last_success_timestamp_seconds',
        { feed: 'loop' },
      ),
    ).toBeUndefined();
    expect(sampleValue(families, 'risk_feed_entries', 'risk_feed_entries', { feed: 'vendor' })).toBe(120);
    expect(text).not.toContain(base); // no URLs: a query string may carry a token
  });

  it('feeds remove drops the schedule and the entries', async () => {
    expect(await cmd('feeds remove', { name: 'loop' })).toEqual({ name: 'loop', entries: 0 });
    expect(await cmd('feeds remove', { name: 'vendor' })).toEqual({ name: 'vendor', entries: 120 });
    expect(await app.db.prisma.feedSchedule.count({ where: { name: { in: ['loop', 'vendor'] } } })).toBe(0);
  });
});
