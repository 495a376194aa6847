import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../src/domain/webhooks/signature.ts';

/**
 * A real webhook receiver on 127.0.0.1: records every request, verifies its signature with the secrets it is given,
 * and answers as the test sets `mode` (ok, a status, a long body, a redirect, or holding the request unanswered).
 */
export type Received = {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: any;
  verifiedWith: string[];
};
export type ReceiverMode = { kind: 'ok' } | { kind: 'status'; status: number; body?: string } | { kind: 'hold' };

export async function startReceiver(port = 0) {
  const received: Received[] = [];
  const secrets = new Set<string>();
  const held: http.ServerResponse[] = [];
  let mode: ReceiverMode = { kind: 'ok' };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const verifiedWith = [...secrets].filter(
        (s) => verifySignature(body, req.headers['risk-signature'] as string, s).ok,
      );
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        /* kept as text */
      }
      received.push({ url: req.url ?? '', headers: req.headers, body, json, verifiedWith });
      if (mode.kind === 'hold') {
        held.push(res);
        return;
      }
      if (mode.kind === 'status') {
        res.writeHead(
          mode.status,
          mode.status >= 300 && mode.status < 400 ? { location: 'http://127.0.0.1:9/elsewhere' } : {},
        );
        res.end(mode.body ?? 'not now');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('thanks');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/hooks`,
    port: bound,
    received,
    secrets,
    set mode(m: ReceiverMode) {
      mode = m;
    },
    get mode() {
      return mode;
    },
    /** Answers every held request 200 (the receiver got them; the sender may be gone). */
    release() {
      for (const r of held.splice(0)) {
        try {
          r.writeHead(200).end('late');
        } catch {
          /* sender gone */
        }
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of held.splice(0)) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Repeats `step` until `done` says so (the test's own timeout bounds it): no timed assertions. */
export async function until<T>(step: () => Promise<T>, done: (v: T) => boolean, pauseMs = 50): Promise<T> {
  for (;;) {
    const v = await step();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, pauseMs));
  }
}
