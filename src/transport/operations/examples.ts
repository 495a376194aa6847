/**
 * What the operations' examples share: answers a server gave (captured from a test server after one publication,
 * with its base URL, key prefix and times replaced). Each operation file holds its own request and answer examples;
 * Redocly's lint checks each against its schema (test/unit/openapi-file.test.ts).
 */
export const EXAMPLE_BASE = 'http://127.0.0.1:8080';
export const PUBLISHED_AT = '2026-11-23T10:00:00.000Z';
export const FREE = { counted: false, reason: 'free_endpoint' } as const;
export const exampleKey = { name: 'checkout', prefix: 'rk_adDTKSHH' };
export const examplePublication = { version: 12, published_at: PUBLISHED_AT };

export const counts = (reports: number, bad: number) => ({
  reports,
  bad_ratings: bad,
  neutral_ratings: 0,
  good_ratings: 0,
  feed_listings: 0,
});

/** A dimension entity's summary as dimensions and check_block answer it. */
export const summary = (score: number, level: string, bad: number) => ({
  score,
  level,
  counts: counts(1, bad),
  reporters: 1,
  first_seen: '2026-11-23T09:58:12.602Z',
  last_seen: '2026-11-23T09:58:12.633Z',
});

export const ipRequestExample = { ip: '9.9.9.9' };
