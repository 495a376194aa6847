import http from 'node:http';
import https from 'node:https';
import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { refusedAddress } from './address-guard.ts';

/**
 * One HTTP POST of a delivery (docs/webhooks.md, "Where deliveries may go"). The host is resolved here, every address
 * it resolves to is checked (refusedAddress), and the socket connects to the checked address itself (the request's
 * `lookup` answers with it): a DNS answer that changes between the check and the connection cannot redirect the
 * request. Hosts in the operator's allow list skip the check. No redirect is followed (a 3xx is a failed attempt);
 * the whole exchange ends after SEND_TIMEOUT_MS; at most EXCERPT_BYTES of the response body are read, the rest is
 * not downloaded (the socket is closed).
 */
export const SEND_TIMEOUT_MS = 10_000;
export const EXCERPT_BYTES = 1024;

export type SendOutcome = { httpStatus: number | null; error: string | null; excerpt: string; latencyMs: number };

export type SendOptions = { allowedHosts: readonly string[]; timeoutMs?: number; userAgent: string };

/** The host as the allow list spells it: lowercase, IPv6 without brackets. */
export const hostOf = (url: URL) => url.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');

class Refused extends Error {}

/** The address to connect to: the host's first, after every address it resolves to passed the guard. */
async function checkedAddress(host: string, allowed: boolean): Promise<{ address: string; family: number }> {
  if (isIP(host)) {
    const why = allowed ? null : refusedAddress(host);
    if (why) throw new Refused(why);
    return { address: host, family: isIP(host) };
  }
  let found: Array<{ address: string; family: number }>;
  try {
    found = await lookup(host, { all: true, verbatim: true });
  } catch (e) {
    throw new Refused(`${host} did not resolve (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (found.length === 0) throw new Refused(`${host} did not resolve`);
  if (!allowed) {
    for (const a of found) {
      const why = refusedAddress(a.address);
      if (why) throw new Refused(`${host} resolves to ${why}`);
    }
  }
  return found[0]!;
}

export async function sendDelivery(
  target: string,
  body: string,
  headers: Record<string, string>,
  opts: SendOptions,
): Promise<SendOutcome> {
  const started = performance.now();
  const done = (o: Omit<SendOutcome, 'latencyMs'>): SendOutcome => ({
    ...o,
    latencyMs: Math.round(performance.now() - started),
  });
  const timeoutMs = opts.timeoutMs ?? SEND_TIMEOUT_MS;
  const url = new URL(target);
  const host = hostOf(url);
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const pinned = await Promise.race([
      checkedAddress(host, opts.allowedHosts.includes(host)),
      new Promise<never>((_, reject) =>
        abort.signal.addEventListener('abort', () =>
          reject(new Refused(`timed out after ${timeoutMs} ms resolving ${host}`)),
        ),
      ),
    ]);
    const pin: LookupFunction = (_h, o, cb) => {
      if ((o as { all?: boolean }).all)
        (cb as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [pinned]);
      else cb(null, pinned.address, pinned.family);
    };
    return done(
      await new Promise<Omit<SendOutcome, 'latencyMs'>>((resolve) => {
        const client = url.protocol === 'https:' ? https : http;
        const req = client.request(
          url,
          {
            method: 'POST',
            lookup: pin,
            signal: abort.signal,
            agent: false,
            headers: {
              ...headers,
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(body)),
              'user-agent': opts.userAgent,
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            let size = 0;
            const finish = () => {
              res.destroy();
              const status = res.statusCode ?? 0;
              const excerpt = Buffer.concat(chunks)
                .subarray(0, EXCERPT_BYTES)
                .toString('utf8')
                .replace(/\uFFFD+$/, '');
              const error =
                status >= 200 && status < 300
                  ? null
                  : status >= 300 && status < 400
                    ? `redirect (${status}) not followed`
                    : `HTTP ${status}`;
              resolve({ httpStatus: status, error, excerpt });
            };
            res.on('data', (c: Buffer) => {
              chunks.push(c);
              size += c.length;
              if (size >= EXCERPT_BYTES) finish(); // the rest of the body is never read
            });
            res.on('end', finish);
            res.on('error', finish); // the status arrived: the attempt is judged on it, the excerpt is what came
            res.on('close', finish);
          },
        );
        req.on('error', (e: NodeJS.ErrnoException) => {
          const why = abort.signal.aborted ? `timed out after ${timeoutMs} ms` : `${e.code ?? 'error'}: ${e.message}`;
          resolve({ httpStatus: null, error: why.slice(0, 500), excerpt: '' });
        });
        req.end(body);
      }),
    );
  } catch (e) {
    if (e instanceof Refused)
      return done({ httpStatus: null, error: `refused: ${e.message}`.slice(0, 500), excerpt: '' });
    throw e;
  } finally {
    clearTimeout(timer);
  }
}
