import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Handler } from '../http/server.ts';
import { PACKAGE_ROOT } from '../../platform/package-root.ts';

/**
 * GraphiQL at GET /graphql (a browser asking for HTML), served entirely from this server: the
 * prebuilt bundle of @graphql-yoga/graphiql (the same GraphiQL yoga renders, which it loads from a
 * public CDN), with its Monaco editor workers, under /graphiql/<version>/. So it
 * works without internet, and the page runs under a Content-Security-Policy that lets it load
 * scripts, workers and styles from this origin only: a compromised CDN cannot run script on the
 * origin that also serves /workspace. No inline script: the options travel as JSON data.
 */
const PACKAGE = '@graphql-yoga/graphiql';
const BUILT = path.join(PACKAGE_ROOT, 'dist', 'graphiql');

/**
 * Where the bundle's files are, and its version: the copy `npm run build` makes in dist/graphiql/ (the runtime image
 * has that copy only: the package is a development one, with ~150 MB of editor sources no request reads), else, in
 * a checkout not built yet, the package's own dist/.
 */
function bundleFiles(): { dir: string; version: string } {
  if (existsSync(path.join(BUILT, 'version.txt')))
    return { dir: BUILT, version: readFileSync(path.join(BUILT, 'version.txt'), 'utf8').trim() };
  const require = createRequire(import.meta.url);
  const manifest = require.resolve(`${PACKAGE}/package.json`);
  return {
    dir: path.join(path.dirname(manifest), 'dist'),
    version: (require(manifest) as { version: string }).version,
  };
}
const { dir: DIST, version: PACKAGE_VERSION } = bundleFiles();

/**
 * Sets Monaco's worker URLs (same origin, so no blob: workers), then renders once the bundle has loaded. Our own
 * fetcher never sends the placeholder key: without a key typed into the headers, a query is answered here with how
 * to add one, and the schema's introspection waits until a key is typed (then it runs by itself), so the page opens
 * without an error (docs/api.md, GraphiQL).
 */
const START_JS = `(() => {
  const base = document.currentScript.src.replace(/[^/]*$/, '');
  const options = JSON.parse(document.getElementById('graphiql-options').textContent);
  const workers = { editorWorkerService: 'editor.worker.js', json: 'json.worker.js', graphql: 'graphql.worker.js' };
  self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (_id, label) => base + (workers[label] || workers.editorWorkerService) };
  const keyIn = (headers) => Object.entries(headers || {}).some(([name, value]) =>
    /^(x-api-key|authorization)$/i.test(name) && typeof value === 'string' && value.trim() !== '' && !value.includes('<API_KEY>'));
  const endpoint = options.endpoint;
  delete options.endpoint; // our fetcher posts to it (GraphiQL warns when given both)
  const send = (params, headers) => fetch(endpoint, {
    method: 'POST', credentials: 'omit', body: JSON.stringify(params),
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...headers },
  });
  const post = (params, headers) => send(params, headers).then((r) => r.json());
  let waiting = null;
  let typing = 0;
  options.fetcher = (params, opts) => {
    const headers = opts && opts.headers;
    if (keyIn(headers)) return post(params, headers);
    if (/query IntrospectionQuery/.test(params.query)) return new Promise((resolve) => { waiting = { params, resolve }; });
    return Promise.resolve({ errors: [{ message: options.keyHelp }] });
  };
  // The schema is asked for once the headers have rested half a second (a key is typed a character at a time);
  // a key the server refuses keeps it waiting for the next edit (Run shows why).
  options.onEditHeaders = (text) => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      let headers = null;
      try { headers = JSON.parse(text); } catch { return; }
      if (!waiting || !keyIn(headers)) return;
      const held = waiting;
      waiting = null;
      send(held.params, headers).then(async (r) => {
        if (r.status === 401) waiting = held;
        else held.resolve(await r.json());
      }, (e) => held.resolve({ errors: [{ message: String(e) }] }));
    }, 500);
  };
  addEventListener('DOMContentLoaded', () => YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), options));
})();
`;

const JS = 'text/javascript; charset=utf-8';
const FILES: Record<string, { type: string; file?: string; text?: string }> = {
  'start.js': { type: JS, text: START_JS },
  'graphiql.js': { type: JS, file: 'yoga-graphiql.umd.js' },
  'graphiql.css': { type: 'text/css; charset=utf-8', file: 'graphiql.css' },
  'editor.worker.js': { type: JS, file: 'monacoeditorwork/editor.worker.bundle.js' },
  'json.worker.js': { type: JS, file: 'monacoeditorwork/json.worker.bundle.js' },
  'graphql.worker.js': { type: JS, file: 'monacoeditorwork/graphql.worker..bundle.js' }, // sic: the package's file name
};

/** The assets' path changes with the package and with START_JS, so browsers may cache them for good. */
export const GRAPHIQL_ASSETS = `/graphiql/${createHash('sha256').update(`${PACKAGE_VERSION}\n${START_JS}`).digest('hex').slice(0, 12)}/`;

/**
 * Scripts, workers and fetches from this origin only; styles from this origin plus inline ones
 * (Monaco and React set style attributes and add <style> elements at run time); fonts and icons are
 * data: URLs inside the stylesheet. Never framed; forms and <base> disabled.
 */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; worker-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; font-src data:; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cache-control': 'no-cache',
};

const KEY_HELP =
  'Add your API key first: open Headers (below the query) and replace <API_KEY> with a key of your workspace (create one at /workspace/keys). The schema then loads by itself.';
const OPTIONS = {
  title: 'IP risk API — GraphiQL',
  endpoint: '/graphql',
  headers: JSON.stringify({ 'X-API-Key': '<API_KEY>' }, null, 2),
  keyHelp: KEY_HELP,
  query: [
    '# GraphiQL for the IP risk API.',
    '#',
    '# 1. Open Headers (below) and',
    '#    replace <API_KEY> with an API',
    '#    key of your workspace (create',
    '#    one at /workspace/keys). The',
    '#    schema then loads by itself.',
    '# 2. Press Run (Ctrl-Enter).',
    '#',
    '# The key stays in this page: it',
    '# is not saved in the browser.',
    '{',
    '  viewer { workspace { name } }',
    '}',
    '',
  ].join('\n'),
  // The key stays in the page, not in localStorage, where any script of this origin could read it later.
  shouldPersistHeaders: false,
};

/**
 * A phone (390 px): the query and headers above the response instead of beside it, no drag bar, no logo, slimmer
 * margins, so each editor is as wide as the screen (test/web/graphiql-open.test.ts measures it).
 */
const NARROW_CSS = `@media (max-width:40rem){.graphiql-container .graphiql-sessions{margin:4px}
.graphiql-container .graphiql-sidebar{width:44px;padding:8px 0}.graphiql-container .graphiql-sidebar button{width:36px;margin:0 4px}
.graphiql-container .graphiql-logo,.graphiql-container .graphiql-horizontal-drag-bar{display:none}
.graphiql-container .graphiql-sessions>div:last-child{flex-direction:column}
.graphiql-container .graphiql-editors,.graphiql-container .graphiql-response{flex:1 1 50%!important;min-height:0;width:100%}}`;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${OPTIONS.title}</title><link rel="icon" href="data:,"><link rel="stylesheet" href="${GRAPHIQL_ASSETS}graphiql.css">
<style>${NARROW_CSS}</style>
</head><body class="no-focus-outline"><noscript>GraphiQL needs JavaScript. Without it, POST queries to /graphql as JSON.</noscript>
<div id="root">Loading GraphiQL…</div>
<script type="application/json" id="graphiql-options">${JSON.stringify(OPTIONS).replace(/</g, '\\u003c')}</script>
<script src="${GRAPHIQL_ASSETS}start.js"></script><script src="${GRAPHIQL_ASSETS}graphiql.js"></script>
</body></html>
`;

/** yoga's rule: a GET whose Accept names text/html is a browser opening /graphql. */
export function wantsGraphiql(req: IncomingMessage): boolean {
  return req.method === 'GET' && (req.headers.accept ?? '').includes('text/html');
}

export function sendGraphiqlPage(res: ServerResponse): void {
  res.writeHead(200, { ...PAGE_HEADERS, 'content-length': Buffer.byteLength(PAGE) });
  res.end(PAGE);
}

type Loaded = { body: Buffer; gzipped: Buffer; etag: string };
const loaded = new Map<string, Promise<Loaded>>();

/** Read and compressed once, on first use (the bundle is ~5 MB, ~1.4 MB gzipped). */
function load(name: string): Promise<Loaded> {
  let p = loaded.get(name);
  if (!p) {
    const f = FILES[name]!;
    p = (f.text !== undefined ? Promise.resolve(Buffer.from(f.text)) : readFile(path.join(DIST, f.file!))).then(
      async (body) => ({
        body,
        gzipped: await promisify(gzip)(body),
        etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
      }),
    );
    p.catch(() => loaded.delete(name));
    loaded.set(name, p);
  }
  return p;
}

/** Serves GET/HEAD /graphiql/<version>/<file>; false when `path` names no asset (the server answers 404). */
export const serveGraphiqlAsset: Handler = async (req, res, urlPath) => {
  const name = urlPath.startsWith(GRAPHIQL_ASSETS) ? urlPath.slice(GRAPHIQL_ASSETS.length) : '';
  if (!Object.hasOwn(FILES, name) || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
  const a = await load(name);
  const headers: Record<string, string | number> = {
    'content-type': FILES[name]!.type,
    etag: a.etag,
    vary: 'accept-encoding',
    'cache-control': 'public, max-age=31536000, immutable',
    'x-content-type-options': 'nosniff',
    'cross-origin-resource-policy': 'same-origin',
  };
  if (req.headers['if-none-match'] === a.etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  const gz = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  const body = gz ? a.gzipped : a.body;
  res.writeHead(200, { ...headers, ...(gz ? { 'content-encoding': 'gzip' } : {}), 'content-length': body.length });
  res.end(req.method === 'HEAD' ? undefined : body);
};
