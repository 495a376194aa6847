/**
 * One bounded HTTP download of a feed: http/https only, a conditional request when a version is held
 * (If-None-Match / If-Modified-Since), at most MAX_REDIRECTS redirects (http/https, never from https down to
 * http), a byte limit (Content-Length checked first, then every byte counted, after any Content-Encoding is
 * undone, so a compressed bomb stops at the same limit) and one time limit for all of it, body included.
 *
 * Destinations are not filtered: an operator configures feeds, and a list on the local network is legitimate.
 * What a fetch can cost is bounded by size, time and redirects instead (docs/operations.md, "Feeds from URLs").
 */
export const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'risk-api-feed-fetcher';

export type DownloadLimits = { maxBytes: number; timeoutMs: number };
export type Validators = { etag: string | null; lastModified: string | null };

export type Downloaded =
  | { notModified: true; status: 304 }
  | { notModified: false; status: number; body: AsyncIterable<Uint8Array>; validators: Validators; url: string };

/** A fetch that did not give a usable answer; the feed keeps its version. */
export class DownloadError extends Error {
  constructor(
    message: string,
    readonly httpStatus: number | null = null,
  ) {
    super(message);
  }
}

export function checkFeedUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DownloadError(`"${text.slice(0, 100)}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new DownloadError(`only http and https URLs are fetched, not ${url.protocol}`);
  if (url.username || url.password)
    throw new DownloadError(
      'a feed URL cannot carry a user name or password (they would be stored and shown with the feed)',
    );
  return url;
}

/** The URL without its query and fragment, for logs (a query may carry a feed's access token). */
export function urlForLog(text: string): string {
  try {
    const u = new URL(text);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

function limitBytes(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  signal: AbortSignal,
  aborted: () => DownloadError,
): AsyncIterable<Uint8Array> {
  return (async function* () {
    let total = 0;
    const reader = body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        total += value.length;
        if (total > maxBytes)
          throw new DownloadError(
            `the feed is larger than the ${maxBytes}-byte limit (FEED_FETCH_MAX_BYTES); the download was stopped`,
          );
        yield value;
      }
    } catch (e) {
      throw signal.aborted ? aborted() : e;
    } finally {
      reader.cancel().catch(() => {});
    }
  })();
}

/**
 * Starts the download; the returned body must be read within the same time limit (the signal covers it).
 * `stop` cancels it (the server shutting down).
 */
export async function download(
  urlText: string,
  held: Validators,
  limits: DownloadLimits,
  stop?: AbortSignal,
): Promise<Downloaded> {
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const signal = stop ? AbortSignal.any([deadline, stop]) : deadline;
  const timedOut = () =>
    new DownloadError(
      deadline.aborted
        ? `timed out after ${limits.timeoutMs / 1000} s (FEED_FETCH_TIMEOUT_MS)`
        : 'cancelled: the server is stopping',
    );
  let url = checkFeedUrl(urlText);
  const conditional: Record<string, string> = {
    ...(held.etag ? { 'if-none-match': held.etag } : {}),
    ...(held.lastModified ? { 'if-modified-since': held.lastModified } : {}),
  };
  for (let redirects = 0; ; redirects++) {
    let res: Response;
    try {
      res = await fetch(url, {
        redirect: 'manual',
        signal,
        headers: { 'user-agent': USER_AGENT, accept: 'text/plain, text/csv;q=0.9, */*;q=0.5', ...conditional },
      });
    } catch (e) {
      if (signal.aborted) throw timedOut();
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new DownloadError(`could not fetch ${url.host}: ${cause?.code ?? cause?.message ?? (e as Error).message}`);
    }
    if (REDIRECTS.has(res.status)) {
      await res.body?.cancel().catch(() => {});
      const location = res.headers.get('location');
      if (!location) throw new DownloadError(`HTTP ${res.status} without a Location header`, res.status);
      if (redirects >= MAX_REDIRECTS) throw new DownloadError(`more than ${MAX_REDIRECTS} redirects`, res.status);
      let next: URL;
      try {
        next = checkFeedUrl(new URL(location, url).toString());
      } catch (e) {
        throw new DownloadError(`redirected to a URL that is not fetched: ${(e as Error).message}`, res.status);
      }
      if (url.protocol === 'https:' && next.protocol === 'http:')
        throw new DownloadError(`redirected from https down to http (${next.host}): refused`, res.status);
      url = next;
      continue;
    }
    if (res.status === 304 && Object.keys(conditional).length) {
      await res.body?.cancel().catch(() => {});
      return { notModified: true, status: 304 };
    }
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => {});
      throw new DownloadError(`HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`, res.status);
    }
    const length = Number(res.headers.get('content-length') ?? NaN);
    if (!res.headers.has('content-encoding') && length > limits.maxBytes) {
      await res.body?.cancel().catch(() => {});
      throw new DownloadError(
        `the feed is ${length} bytes, more than the ${limits.maxBytes}-byte limit (FEED_FETCH_MAX_BYTES)`,
        res.status,
      );
    }
    const body = res.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
    return {
      notModified: false,
      status: res.status,
      url: url.toString(),
      body: limitBytes(body, limits.maxBytes, signal, timedOut),
      validators: { etag: res.headers.get('etag'), lastModified: res.headers.get('last-modified') },
    };
  }
}
