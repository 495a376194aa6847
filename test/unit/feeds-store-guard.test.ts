/**
 * A bad download must not replace a good feed: an import with no valid entry, or with more than 10% bad
 * lines (unless allowPartial), is refused and changes nothing; a re-import keeps the feed's weight unless
 * one is given; a dry run reports the outcome and writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFeed, listFeeds } from '../../src/domain/feeds/store.ts';
import { parseFeedText } from '../../src/domain/feeds/parse.ts';
import { AppError } from '../../src/errors.ts';
import { backendName } from '../helpers/backend.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/publishing-fixtures.ts';

const T0 = new Date('2026-03-01T00:00:00Z');
const GOOD = Array.from({ length: 200 }, (_, i) => `10.1.${i}.0/24`).join('\n');
const HTML_ERROR_PAGE = `<!DOCTYPE html>
<html><head><title>502 Bad Gateway</title></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>nginx</center>
</body></html>
`;
/** `good` valid lines then `bad` bad ones, with comments and blank lines that count as neither. */
const mixed = (good: number, bad: number) =>
  [
    '# a feed',
    '',
    ...Array.from({ length: good }, (_, i) => `10.2.${i}.1`),
    ...Array.from({ length: bad }, (_, i) => `junk-${i}`),
  ].join('\n');

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e, 'expected the import to be refused').toBeInstanceOf(AppError);
  return e as AppError;
}

describe(`feed import guard (${backendName})`, () => {
  let t: TestDatabase;
  const feed = async (name: string) => (await listFeeds(t.prisma)).find((f) => f.name === name);
  const entryCount = (name: string) => t.prisma.feedEntry.count({ where: { feed: { name } } });

  beforeAll(async () => {
    t = await openTestDatabase();
    await importFeed(t.prisma, {
      name: 'vendor',
      format: 'plain',
      weight: 0.3,
      source: 'good.txt',
      parsed: parseFeedText(GOOD, 'plain'),
      now: T0,
    });
  });
  afterAll(() => t?.close());

  it('refuses an HTML error page (no valid entry) and leaves the feed as it was, even with allowPartial', async () => {
    const before = await feed('vendor');
    for (const allowPartial of [false, true]) {
      const e = await refusal(
        importFeed(t.prisma, {
          name: 'vendor',
          format: 'plain',
          weight: 1,
          source: 'page.html',
          parsed: parseFeedText(HTML_ERROR_PAGE, 'plain'),
          allowPartial,
        }),
      );
      expect(e.code).toBe('invalid_request');
      expect(e.status).toBe(400);
      expect(e.message).toMatch(/no valid entry.*6 bad lines.*line 1.*Nothing was changed/s);
    }
    expect(await feed('vendor')).toEqual(before);
    expect(await entryCount('vendor')).toBe(200);
  });

  it('refuses an empty file, and a new feed with no valid entry is not created', async () => {
    await refusal(
      importFeed(t.prisma, {
        name: 'vendor',
        format: 'plain',
        weight: 0.5,
        source: 'empty.txt',
        parsed: parseFeedText('', 'plain'),
      }),
    );
    await refusal(
      importFeed(t.prisma, {
        name: 'fresh',
        format: 'plain',
        weight: 0.5,
        source: 'page.html',
        parsed: parseFeedText(HTML_ERROR_PAGE, 'plain'),
      }),
    );
    expect(await feed('fresh')).toBeUndefined();
    expect(await entryCount('vendor')).toBe(200);
  });

  it('refuses more than 10% bad lines unless allowPartial; exactly 10% is accepted', async () => {
    const e = await refusal(
      importFeed(t.prisma, {
        name: 'vendor',
        format: 'plain',
        weight: 1,
        source: 'partial.txt',
        parsed: parseFeedText(mixed(89, 11), 'plain'),
      }),
    );
    expect(e.message).toMatch(/11 of 100 lines.*more than 10%.*allow-partial/s);
    expect(await entryCount('vendor')).toBe(200);
    expect((await feed('vendor'))!.source).toBe('good.txt');

    const partial = await importFeed(t.prisma, {
      name: 'vendor',
      format: 'plain',
      source: 'partial.txt',
      parsed: parseFeedText(mixed(89, 11), 'plain'),
      allowPartial: true,
    });
    expect(partial).toMatchObject({ entries: 89, errors: 11, replaced: true, previousEntries: 200 });
    const tenth = await importFeed(t.prisma, {
      name: 'vendor',
      format: 'plain',
      source: 'tenth.txt',
      parsed: parseFeedText(mixed(90, 10), 'plain'),
    });
    expect(tenth).toMatchObject({ entries: 90, errors: 10, replaced: true, previousEntries: 89 });
  });

  it('keeps the weight on a re-import unless one is given; a new feed starts at 1', async () => {
    expect((await feed('vendor'))!.weight).toBe(0.3);
    const kept = await importFeed(t.prisma, {
      name: 'vendor',
      format: 'plain',
      source: 'good.txt',
      parsed: parseFeedText(GOOD, 'plain'),
    });
    expect(kept.weight).toBe(0.3);
    expect((await feed('vendor'))!.weight).toBe(0.3);
    const changed = await importFeed(t.prisma, {
      name: 'vendor',
      format: 'plain',
      weight: 0.6,
      source: 'good.txt',
      parsed: parseFeedText(GOOD, 'plain'),
    });
    expect(changed.weight).toBe(0.6);
    expect((await feed('vendor'))!.weight).toBe(0.6);
    const created = await importFeed(t.prisma, {
      name: 'another',
      format: 'plain',
      source: 'a.txt',
      parsed: parseFeedText('192.0.2.1\n', 'plain'),
    });
    expect(created).toMatchObject({ weight: 1, replaced: false, previousEntries: null });
  });

  it('a dry run reports what the import would do and writes nothing; a refused one is refused alike', async () => {
    const before = await feed('vendor');
    const dry = await importFeed(t.prisma, {
      name: 'vendor',
      format: 'plain',
      weight: 0.9,
      source: 'new.txt',
      parsed: parseFeedText(mixed(50, 0), 'plain'),
      dryRun: true,
    });
    expect(dry).toEqual({
      name: 'vendor',
      entries: 50,
      errors: 0,
      lines: 52,
      replaced: true,
      previousEntries: 200,
      weight: 0.9,
      dryRun: true,
    });
    expect(await feed('vendor')).toEqual(before);
    expect(await entryCount('vendor')).toBe(200);
    const newFeed = await importFeed(t.prisma, {
      name: 'not-yet',
      format: 'plain',
      source: 'n.txt',
      parsed: parseFeedText('192.0.2.7\n', 'plain'),
      dryRun: true,
    });
    expect(newFeed).toMatchObject({ replaced: false, previousEntries: null, weight: 1, dryRun: true });
    expect(await feed('not-yet')).toBeUndefined();
    await refusal(
      importFeed(t.prisma, {
        name: 'vendor',
        format: 'plain',
        weight: 1,
        source: 'page.html',
        parsed: parseFeedText(HTML_ERROR_PAGE, 'plain'),
        dryRun: true,
      }),
    );
  });
});
