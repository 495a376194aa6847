import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SERVER_ENTRY } from '../helpers/server-entry.ts';

/** Helpers shared by the fault tests (test/reliability/faults-*.test.ts). */

import { eventually, sleep } from '../helpers/eventually.ts';

export type Reply = { status: number; headers: Record<string, string | string[] | undefined>; body: any };

/**
 * One POST over node:http, so a transport failure keeps its errno (ECONNREFUSED, ECONNRESET, …)
 * instead of fetch's generic "fetch failed". Rejects with that error when no response arrives.
 */
export function post(
  base: string,
  route: string,
  body: unknown,
  headers: Record<string, string> = {},
  agent?: Agent,
): Promise<Reply> {
  const url = new URL(route, base);
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent: agent ?? false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers },
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          data += c;
        });
        res.on('error', reject);
        res.on('end', () => {
          let parsed: unknown = data;
          try {
            parsed = JSON.parse(data);
          } catch {
            /* not JSON: keep the text so a failure shows it */
          }
          resolve({ status: res.statusCode!, headers: res.headers, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

export function errno(e: unknown): string {
  const err = e as { code?: string; message?: string };
  return err.code ?? err.message ?? String(e);
}

/** An error body of the REST contract: `{ ok: false, error: <code>, message }`. */
export function isCodedError(body: unknown): body is { ok: false; error: string; message: string } {
  const b = body as { ok?: unknown; error?: unknown; message?: unknown } | null;
  return (
    !!b &&
    b.ok === false &&
    typeof b.error === 'string' &&
    /^[a-z_]+$/.test(b.error) &&
    typeof b.message === 'string' &&
    b.message.length > 0
  );
}

/**
 * The real server (the bundle `npm start` runs) as a child process, as an operator runs it. Its JSON log lines are
 * kept (the last 400) so a failing test can show them.
 */
export type ServerProcess = {
  url: string;
  child: ChildProcess;
  logs: string[];
  /** Resolves with the exit code (or the signal's name) when the process ends. */
  exited: Promise<number | string>;
};

export function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [SERVER_ENTRY], {
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME ?? tmpdir(),
      PUBLISH_INTERVAL_MS: '0',
      ...env,
      PORT: '0',
      LOG_LEVEL: 'info',
    }, // info: the "listening" line names the port
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line) logs.push(line);
    if (logs.length > 400) logs.splice(0, logs.length - 400);
  };
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  child.stderr!.on('data', keep);
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      keep(chunk);
      if (buffer === null) return;
      buffer += chunk.toString('utf8');
      const match = /"url":"([^"]+)"[^\n]*"msg":"listening"/.exec(buffer);
      if (match) {
        buffer = null as unknown as string;
        resolve({ url: match[1]!, child, logs, exited });
      }
    });
    exited.then((code) =>
      reject(new Error(`server exited (${code}) before listening:\n${logs.slice(-20).join('\n')}`)),
    );
  });
}

/** A private redis-server that keeps its data across restarts (append-only file, fsync on every write). */
export class PersistentRedis {
  private child: ChildProcess | null = null;
  readonly dir = mkdtempSync(path.join(tmpdir(), 'risk-api-redis-'));
  constructor(readonly port: number) {}
  get url() {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start() {
    this.child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--dir',
        this.dir,
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
      ],
      { stdio: 'ignore' },
    );
    const up = await eventually(
      () =>
        new Promise<boolean>((resolve) => {
          const sock = net.createConnection(this.port, '127.0.0.1');
          sock.once('connect', () => {
            sock.destroy();
            resolve(true);
          });
          sock.once('error', () => resolve(false));
        }),
      60_000,
      25,
    );
    if (!up) throw new Error('redis-server did not start');
  }

  /** SIGTERM: Redis finishes the command at hand, flushes its append-only file and exits. */
  async stop(signal: NodeJS.Signals = 'SIGTERM') {
    const child = this.child;
    if (!child) return;
    this.child = null;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  }

  async destroy() {
    await this.stop('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A stream of `rate` and `report` writes, each carrying a unique marker (the rating's note, the report's
 * title) so the database can be asked afterwards how many times each one was stored. Every `keyedEvery`-th
 * write sends an Idempotency-Key. A report names two related subjects: stored whole, it has two links.
 */
export type Write = {
  marker: string;
  route: string;
  body: Record<string, unknown>;
  idemKey?: string;
  sentAt: number;
  doneAt: number;
  status: number | string;
  reply?: any;
  retryAfter?: string;
};

export function makeWrite(run: string, stream: number, n: number, keyed: boolean): Write {
  const marker = `${run}-s${stream}-n${n}`;
  const ip = `198.51.${100 + stream}.${(n % 250) + 1}`;
  const [route, body] =
    n % 2
      ? ['/risk_api/rate/', { ip, rating: -1, note: marker }]
      : [
          '/risk_api/report/',
          {
            kind: 'domain',
            key: `${marker}.example`,
            title: marker,
            outcome_code: 'fraud_watch',
            severity: 'high',
            related_subjects: [
              { kind: 'ipaddress', key: ip, role: 'source_ip' },
              { kind: 'email', key: `${marker}@example.com`, role: 'email' },
            ],
          },
        ];
  return {
    marker,
    route,
    body,
    ...(keyed ? { idemKey: `idem-${marker}` } : {}),
    sentAt: 0,
    doneAt: 0,
    status: 'not sent',
  };
}

export const isReport = (w: Write) => w.route === '/risk_api/report/';

/** Sends one write (again), recording what came back on the write itself. */
export async function send(base: string, auth: Record<string, string>, w: Write, agent?: Agent): Promise<Write> {
  w.sentAt = performance.now();
  const headers = { ...auth, ...(w.idemKey ? { 'idempotency-key': w.idemKey } : {}) };
  try {
    const r = await post(base, w.route, w.body, headers, agent);
    w.status = r.status;
    w.reply = r.body;
    if (r.headers['idempotent-replayed']) w.reply = { ...r.body, replayed: true };
    w.retryAfter = r.headers['retry-after'] as string | undefined;
  } catch (e) {
    w.status = errno(e);
    w.reply = undefined;
  }
  w.doneAt = performance.now();
  return w;
}

/** `streams` concurrent clients, each writing one after the other over its own keep-alive connection until `stop()`. */
export function streamWrites(opts: {
  base: () => string;
  auth: Record<string, string>;
  run: string;
  streams: number;
  keyedEvery: number;
  stop: () => boolean;
  pauseMs?: number;
}): { writes: Write[]; finished: Promise<void> } {
  const writes: Write[] = [];
  const finished = Promise.all(
    Array.from({ length: opts.streams }, async (_, stream) => {
      const agent = new Agent({ keepAlive: true });
      try {
        for (let n = 0; !opts.stop(); n++) {
          const w = makeWrite(opts.run, stream, n, n % opts.keyedEvery === 0);
          writes.push(w);
          await send(opts.base(), opts.auth, w, agent);
          if (opts.pauseMs) await sleep(opts.pauseMs);
          if (typeof w.status === 'string') await sleep(25); // no server to talk to: don't spin
        }
      } finally {
        agent.destroy();
      }
    }),
  ).then(() => {});
  return { writes, finished };
}

/** What a database holds of the markers: ratings per note; reports per title with the id and link count of each copy. */
export type Stored = { ratings: Map<string, number>; reports: Map<string, Array<{ id: number; links: number }>> };

export async function storedWrites(query: (sql: string) => Promise<Array<Record<string, unknown>>>): Promise<Stored> {
  const ratings = new Map<string, number>();
  for (const r of await query('SELECT note, count(*)::int AS n FROM "Rating" GROUP BY note'))
    ratings.set(String(r.note), Number(r.n));
  const reports = new Map<string, Array<{ id: number; links: number }>>();
  for (const r of await query(
    'SELECT r.id, r.title, (SELECT count(*) FROM "ReportLink" l WHERE l."reportId" = r.id)::int AS links FROM "Report" r',
  )) {
    const list = reports.get(String(r.title)) ?? [];
    list.push({ id: Number(r.id), links: Number(r.links) });
    reports.set(String(r.title), list);
  }
  return { ratings, reports };
}

/** How many times a write is stored (a report counts only when stored whole, with its two links). */
export function copies(stored: Stored, w: Write): number {
  return isReport(w) ? (stored.reports.get(w.marker) ?? []).length : (stored.ratings.get(w.marker) ?? 0);
}
