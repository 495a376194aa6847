/**
 * A process's copy of the workspaces' memory of IPs (src/domain/memory/ip-memory.ts): it never skips a
 * commit that lands late, never lets an older row replace a newer one, and holds only IP subjects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IpMemoryCache } from '../../src/domain/memory/ip-memory.ts';
import { ratingStatement } from '../../src/domain/memory/rating-batch.ts';
import { ReportBatcher } from '../../src/domain/memory/report-batch.ts';
import { writeOne } from '../../src/domain/memory/group-commit.ts';
import type { SubjectWithMemory } from '../../src/domain/memory/subject-memory.ts';
import { backendName, usingPostgres } from '../helpers/backend.ts';
import { openTestDatabase, seedWorkspace, type TestDatabase } from '../helpers/publishing-fixtures.ts';

describe(`IpMemoryCache (${backendName})`, () => {
  let t: TestDatabase;
  let ws: number;
  beforeAll(async () => {
    t = await openTestDatabase();
    ws = await seedWorkspace(t.prisma, 'follow');
  });
  afterAll(() => t?.close());

  const rating = (ip: string, value: number, note = '') => ({ workspaceId: ws, apiKeyId: 1, ip, rating: value, note });

  it.runIf(usingPostgres)(
    'reads a commit that lands after a later transaction was already read (its id is below what was seen)',
    async () => {
      const copy = new IpMemoryCache(t.prisma);
      await copy.catchUp();
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let written!: () => void;
      const wrote = new Promise<void>((resolve) => {
        written = resolve;
      });
      // the first transaction takes its id with its write, then stays open
      const early = t.prisma.$transaction(
        async (tx) => {
          await writeOne(ratingStatement(tx), rating('192.0.2.61', -1, 'early'));
          written();
          await held;
        },
        { timeout: 300_000 },
      );
      await wrote;
      await writeOne(ratingStatement(t.prisma), rating('192.0.2.62', 1, 'late')); // a later id, committed first
      await copy.catchUp();
      expect(copy.get(ws, '192.0.2.62')).toMatchObject({ goodRatings: 1, lastRating: { note: 'late' } });
      expect(copy.get(ws, '192.0.2.61').lastRating, 'not committed yet').toBeNull();
      release();
      await early;
      await copy.catchUp();
      expect(copy.get(ws, '192.0.2.61')).toMatchObject({ badRatings: 1, lastRating: { note: 'early' } });
    },
  );

  it('keeps the newer of two rows whatever order they arrive in, and only IP subjects', async () => {
    const copy = new IpMemoryCache(t.prisma);
    const first = await writeOne(ratingStatement(t.prisma), rating('192.0.2.70', -1, 'first'));
    const second = await writeOne(ratingStatement(t.prisma), rating('192.0.2.70', 0, 'second'));
    copy.apply([second.subject]);
    copy.apply([first.subject]); // older: ignored
    expect(copy.get(ws, '192.0.2.70')).toMatchObject({
      goodRatings: 0,
      neutralRatings: 1,
      badRatings: 1,
      lastRating: { rating: 0, note: 'second' },
    });
    await copy.catchUp(); // the table holds the same revision: nothing changes
    expect(copy.get(ws, '192.0.2.70')).toMatchObject({
      neutralRatings: 1,
      badRatings: 1,
      lastRating: { note: 'second' },
    });

    const domain: SubjectWithMemory = {
      ...second.subject,
      kind: 'domain',
      key: 'x.example',
      memory: { ...second.subject.memory, revision: 99 },
    };
    copy.apply([domain]);
    expect(copy.get(ws, 'x.example')).toEqual({
      goodRatings: 0,
      neutralRatings: 0,
      badRatings: 0,
      lastRating: null,
      reports: 0,
    });
  });

  it('reads the whole table in pages at its first catch-up, related-subject reports included', async () => {
    const batcher = new ReportBatcher(t.prisma);
    const ips = Array.from({ length: 300 }, (_, i) => `10.7.${i >> 8}.${i & 255}`);
    await Promise.all(
      ips.map((ip, i) =>
        batcher.write({
          workspaceId: ws,
          apiKeyId: 1,
          kind: 'domain',
          key: `page${i}.example`,
          title: 't',
          summary: '',
          details: '',
          outcomeCode: 'spam',
          severity: 'low',
          tags: [],
          relatedSubjects: [{ kind: 'ipaddress', key: ip, role: 'source_ip' }],
          sharePolicy: 'clear_share',
          namespace: '',
          eventType: 'observation',
          status: '',
          requestedVisibility: 'workspace',
          effectiveVisibility: 'workspace',
          policyNotice: '',
        }),
      ),
    );
    const copy = new IpMemoryCache(t.prisma, 64);
    await copy.catchUp();
    expect(ips.map((ip) => copy.get(ws, ip).reports)).toEqual(ips.map(() => 1));
  });
});
