import http from 'node:http';
import net from 'node:net';
import { ERRORS } from '../../src/errors.ts';

/**
 * The fuzz tests' HTTP side: a node:http client that can send what fetch refuses (raw bytes,
 * repeated headers, no Content-Type), a raw-socket client for broken framing, the checks every
 * answer must pass, and the per-endpoint tallies printed at the end of a run.
 */

/** The bound on one answer. Not a speed assertion: past it the request counts as a hang. A minute: a password hash
 *  waiting for a work slot on a machine busy with other suites took over 15 s (docs/testing.md). */
export const ANSWER_TIMEOUT_MS = 60_000;

export type Answer = { status: number; headers: http.IncomingHttpHeaders; text: string; json: unknown };
export type Headers = Record<string, string | string[]>;

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

/** One request; rejects (a test failure) on a transport error or when no answer comes within ANSWER_TIMEOUT_MS. */
export function send(
  base: string,
  method: string,
  path: string,
  headers: Headers,
  body?: Buffer | string,
): Promise<Answer> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, method, path: url.pathname + url.search, headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', (e) => {
          clearTimeout(timer);
          reject(e);
        });
      },
    );
    const timer = setTimeout(
      () => req.destroy(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms to ${method} ${path} (a hang)`)),
      ANSWER_TIMEOUT_MS,
    );
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end(body);
  });
}

export function closeClient() {
  agent.destroy();
}

export const describeAnswer = (a: Answer) => `${a.status} ${a.text.slice(0, 400)}`;

/** Throws unless `a` is a documented REST error: status < 500, `{ ok: false, error, message }` with the code's own status. */
export function assertCodedRestError(a: Answer, context: string): string {
  const body = a.json as { ok?: unknown; error?: unknown; message?: unknown; details?: unknown } | undefined;
  const fail = (why: string) => {
    throw new Error(`${why}\n  request: ${context}\n  answer: ${describeAnswer(a)}`);
  };
  if (a.status >= 500) fail('a 5xx answer');
  if (body?.ok !== false || typeof body.error !== 'string' || typeof body.message !== 'string' || body.message === '')
    fail('not a coded error body');
  const code = body!.error as string;
  if (!(code in ERRORS)) fail(`unknown error code ${code}`);
  if (ERRORS[code as keyof typeof ERRORS].status !== a.status) fail(`code ${code} answered with status ${a.status}`);
  if (body!.details !== undefined) {
    const ok =
      Array.isArray(body!.details) &&
      body!.details.length > 0 &&
      body!.details.every((d) => typeof d?.field === 'string' && typeof d?.message === 'string');
    if (!ok) fail('details is not a list of { field, message }');
  }
  return code;
}

/** A REST answer is either a success of `endpoint` (2xx, ok: true) or a coded error. Returns the tally label. */
export function assertRestAnswer(a: Answer, endpoint: string, context: string): string {
  if (a.status >= 200 && a.status < 300) {
    const body = a.json as { ok?: unknown; endpoint?: unknown } | undefined;
    if (body?.ok !== true || body.endpoint !== endpoint)
      throw new Error(
        `a success that is not a ${endpoint} answer\n  request: ${context}\n  answer: ${describeAnswer(a)}`,
      );
    return 'ok';
  }
  return assertCodedRestError(a, context);
}

/**
 * A GraphQL answer: status < 500, a JSON object with `data` and/or `errors`, every error carrying
 * a string `extensions.code`, and never `internal_error`. Returns the codes seen ('ok' for none).
 */
export function assertGraphQLAnswer(a: Answer, context: string): string[] {
  const fail = (why: string) => {
    throw new Error(`${why}\n  request: ${context}\n  answer: ${describeAnswer(a)}`);
  };
  if (a.status >= 500) fail('a 5xx answer');
  const body = a.json as
    | { data?: unknown; errors?: Array<{ message?: unknown; extensions?: { code?: unknown } }> }
    | undefined;
  if (!body || typeof body !== 'object' || (!('data' in body) && !('errors' in body))) fail('not a GraphQL response');
  const errors = body!.errors ?? [];
  if (!Array.isArray(errors)) fail('errors is not a list');
  const codes = errors.map((e) => e?.extensions?.code);
  if (codes.some((c) => typeof c !== 'string' || c === '')) fail('an error without extensions.code');
  if (codes.includes('internal_error')) fail('an internal_error');
  if (errors.length === 0 && a.status !== 200) fail('a non-200 answer without errors');
  return codes.length ? [...new Set(codes as string[])] : ['ok'];
}

/** Answers by status and by code per endpoint, printed as a table when a file ends. */
export class Tally {
  private rows = new Map<string, { cases: number; status: Map<string, number>; code: Map<string, number> }>();

  add(endpoint: string, status: number | string, codes: string | string[]) {
    let row = this.rows.get(endpoint);
    if (!row) this.rows.set(endpoint, (row = { cases: 0, status: new Map(), code: new Map() }));
    row.cases++;
    row.status.set(String(status), (row.status.get(String(status)) ?? 0) + 1);
    for (const c of Array.isArray(codes) ? codes : [codes]) row.code.set(c, (row.code.get(c) ?? 0) + 1);
  }

  cases(endpoint: string): number {
    return this.rows.get(endpoint)?.cases ?? 0;
  }

  table(title: string): string {
    const fmt = (m: Map<string, number>) =>
      [...m]
        .sort((x, y) => y[1] - x[1])
        .map(([k, n]) => `${k} ${n.toLocaleString('en-US')}`)
        .join(', ');
    const lines = [
      `#### ${title}`,
      '',
      '| endpoint | cases | answers by status | answers by code |',
      '|---|--:|---|---|',
    ];
    for (const [endpoint, r] of this.rows)
      lines.push(`| ${endpoint} | ${r.cases.toLocaleString('en-US')} | ${fmt(r.status)} | ${fmt(r.code)} |`);
    return lines.join('\n');
  }
}

/** What one raw-socket exchange gave: the parsed response if one came, and whether the server closed the connection. */
export type RawResult = { status: number | null; head: string; body: string; closed: boolean };

/**
 * Writes `pieces` on a new connection (a small pause between pieces, so the server sees them
 * separately), half-closes when `end`, then waits for one complete response (Content-Length or
 * chunked framing), the server closing, or ANSWER_TIMEOUT_MS (a hang: rejects).
 */
export function rawExchange(
  port: number,
  pieces: Buffer[],
  end: boolean,
  opts: { headOnly?: boolean; timeoutMs?: number } = {},
): Promise<RawResult> {
  const timeoutMs = opts.timeoutMs ?? ANSWER_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const { complete: _complete, ...result } = parseResponse(data, opts.headOnly ?? false);
      resolve({ ...result, closed });
    };
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      socket.destroy();
      reject(
        new Error(
          `no answer and no close within ${timeoutMs} ms (a hang); received: ${JSON.stringify(data.toString('latin1').slice(0, 300))}`,
        ),
      );
    }, timeoutMs);
    socket.on('data', (d: Buffer) => {
      data = Buffer.concat([data, d]);
      if (parseResponse(data, opts.headOnly ?? false).complete) finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.on('connect', async () => {
      for (const [i, p] of pieces.entries()) {
        if (socket.destroyed) return;
        socket.write(p);
        if (i < pieces.length - 1) await new Promise((r) => setTimeout(r, 2));
      }
      if (end && !socket.destroyed) socket.end();
    });
  });
}

function parseResponse(all: Buffer, headOnly: boolean): RawResult & { complete: boolean } {
  let data = all;
  // Skip interim responses (100 Continue): the final one follows.
  while (/^HTTP\/1\.[01] 1\d\d /.test(data.toString('latin1', 0, 13)) && data.includes('\r\n\r\n'))
    data = data.subarray(data.indexOf('\r\n\r\n') + 4);
  const text = data.toString('latin1');
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) return { status: null, head: text, body: '', closed: false, complete: false };
  const head = text.slice(0, split);
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(head);
  const status = m ? Number(m[1]) : null;
  const rest = data.subarray(split + 4);
  if (headOnly) return { status, head, body: '', closed: false, complete: true };
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  if (length) {
    const n = Number(length[1]);
    return { status, head, body: rest.subarray(0, n).toString('utf8'), closed: false, complete: rest.length >= n };
  }
  if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
    return {
      status,
      head,
      body: rest.toString('utf8'),
      closed: false,
      complete: rest.toString('latin1').endsWith('0\r\n\r\n'),
    };
  }
  return { status, head, body: rest.toString('utf8'), closed: false, complete: false }; // body until close
}
