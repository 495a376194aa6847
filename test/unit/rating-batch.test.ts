/**
 * The group commit of ratings: concurrent calls share statements, every caller gets the row
 * written for its own input, and a row that cannot be written fails alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RatingBatcher, type RatingInput } from '../../src/domain/memory/rating-batch.ts';
import { backendName } from '../helpers/backend.ts';
import { countingClient } from '../helpers/counting-client.ts';
import { openTestDatabase, seedWorkspace, type TestDatabase } from '../helpers/publishing-fixtures.ts';
import { maintainedMemory, recountMemory } from '../helpers/memory-recount.ts';

describe(`RatingBatcher (${backendName})`, () => {
  let t: TestDatabase;
  let wsA: number;
  let wsB: number;
  beforeAll(async () => {
    t = await openTestDatabase();
    wsA = await seedWorkspace(t.prisma, 'batch-a');
    wsB = await seedWorkspace(t.prisma, 'batch-b');
  });
  afterAll(() => t?.close());

  it('writes 60 concurrent ratings in a few statements, each caller answered with the row of its own input', async () => {
    const client = countingClient(t.prisma);
    const batcher = new RatingBatcher(client, 1, 256);
    // repeated IPs, identical duplicates and two workspaces rating the same IP
    const inputs: RatingInput[] = Array.from({ length: 60 }, (_, i) => ({
      workspaceId: i % 3 === 0 ? wsB : wsA,
      apiKeyId: 100 + (i % 2),
      ip: `198.51.100.${i % 7}`,
      rating: (i % 3) - 1,
      note: i % 5 === 0 ? 'same note' : `note ${i}`,
    }));
    const rows = await Promise.all(inputs.map((input) => batcher.write(input)));
    expect(client.statements, 'one statement for the first call, one for the 59 queued behind it').toBe(2);
    rows.forEach((row, i) => {
      const input = inputs[i]!;
      expect(
        {
          ws: row.workspaceId,
          key: row.apiKeyId,
          ip: row.subject.key,
          rating: row.rating,
          note: row.note,
          subjectWs: row.subject.workspaceId,
        },
        `call ${i}`,
      ).toEqual({
        ws: input.workspaceId,
        key: input.apiKeyId,
        ip: input.ip,
        rating: input.rating,
        note: input.note,
        subjectWs: input.workspaceId,
      });
    });
    expect(new Set(rows.map((r) => r.id)).size, 'every call its own rating').toBe(60);
    expect(
      rows.map((r) => r.id),
      'ids follow the order the calls came in',
    ).toEqual(rows.map((r) => r.id).sort((a, b) => a - b));
    const stored = await t.prisma.rating.findMany({
      where: { id: { in: rows.map((r) => r.id) } },
      include: { subject: true },
    });
    expect(stored).toHaveLength(60);
    for (const s of stored)
      expect(rows.find((r) => r.id === s.id)).toMatchObject({ rating: s.rating, note: s.note, subjectId: s.subjectId });
    const subjects = new Set(stored.map((s) => s.subjectId));
    expect(subjects.size, 'one subject node per (workspace, IP)').toBe(
      new Set(inputs.map((i) => `${i.workspaceId}|${i.ip}`)).size,
    );
    // each subject's memory: the counts and last rating of its whole history, and answered as the statement left it
    expect(await maintainedMemory(t.prisma, [...subjects])).toEqual(await recountMemory(t.prisma, [...subjects]));
    const last = rows.at(-1)!;
    expect(last.subject.memory).toMatchObject({
      lastRatingId: last.id,
      lastRating: last.rating,
      lastNote: last.note,
      lastRatedAt: last.createdAt,
    });
  });

  it('fails only the rating that cannot be written when a batch statement fails', async () => {
    const batcher = new RatingBatcher(t.prisma, 1, 256);
    const good = (n: number): RatingInput => ({
      workspaceId: wsA,
      apiKeyId: 1,
      ip: `203.0.113.${n}`,
      rating: 1,
      note: `ok ${n}`,
    });
    const first = batcher.write(good(1)); // runs alone; the next three queue into one statement
    const results = await Promise.allSettled([
      first,
      batcher.write(good(2)),
      batcher.write({ ...good(3), workspaceId: 2_000_000_000 }),
      batcher.write(good(4)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    const notes = (await t.prisma.rating.findMany({ where: { note: { startsWith: 'ok ' } }, select: { note: true } }))
      .map((r) => r.note)
      .sort();
    expect(notes).toEqual(['ok 1', 'ok 2', 'ok 4']);
  });
});
