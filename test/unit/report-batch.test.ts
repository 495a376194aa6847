/**
 * The group commit of reports: concurrent calls share statements, every caller gets the report
 * written for its own input (subject, related subjects, tags, every field), subject nodes stay
 * one per (workspace, kind, key) within a batch, a report that cannot be written fails alone, and
 * concurrent statements never deadlock on the subjects they share.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RatingBatcher } from '../../src/domain/memory/rating-batch.ts';
import { ReportBatcher, type NewReport, type ReportRow } from '../../src/domain/memory/report-batch.ts';
import { backendName } from '../helpers/backend.ts';
import { countingClient } from '../helpers/counting-client.ts';
import { openTestDatabase, seedWorkspace, type TestDatabase } from '../helpers/publishing-fixtures.ts';
import { maintainedMemory, recountMemory } from '../helpers/memory-recount.ts';

let unique = 0;
/** A report of `workspaceId` about `key`; every field differs per call, so a mixed-up answer shows. */
function report(workspaceId: number, kind: string, key: string, extra: Partial<NewReport> = {}): NewReport {
  const n = ++unique;
  return {
    workspaceId,
    apiKeyId: 500 + n,
    kind,
    key,
    title: `title ${n}`,
    summary: `summary ${n}`,
    details: `details ${n}`,
    outcomeCode: n % 2 ? 'spam' : 'fraud_confirmed',
    severity: n % 2 ? 'high' : 'low',
    tags: [],
    relatedSubjects: [],
    sharePolicy: n % 2 ? 'private' : 'community',
    namespace: `ns${n}`,
    eventType: 'observation',
    status: n % 3 ? '' : 'open',
    requestedVisibility: 'community',
    effectiveVisibility: n % 2 ? 'workspace' : 'community',
    policyNotice: n % 2 ? `notice ${n}` : '',
    ...extra,
  };
}

/** The answer a caller must get for its input (ids and times aside: those the database gives). */
function expectedFor(input: NewReport) {
  const { kind, key, relatedSubjects, ...fields } = input;
  const memory = expect.objectContaining({ revision: expect.any(Number), reports: expect.any(Number) });
  const subject = {
    id: expect.any(Number),
    workspaceId: input.workspaceId,
    kind,
    key,
    createdAt: expect.any(Date),
    memory,
  };
  return {
    ...fields,
    id: expect.any(Number),
    createdAt: expect.any(Date),
    subjectId: expect.any(Number),
    subject,
    links: relatedSubjects.map((r, position) => ({
      reportId: expect.any(Number),
      subjectId: expect.any(Number),
      role: r.role,
      position,
      subject: {
        id: expect.any(Number),
        workspaceId: input.workspaceId,
        kind: r.kind,
        key: r.key,
        createdAt: expect.any(Date),
        memory,
      },
    })),
  };
}

describe(`ReportBatcher (${backendName})`, () => {
  let t: TestDatabase;
  let wsA: number;
  let wsB: number;
  beforeAll(async () => {
    t = await openTestDatabase();
    wsA = await seedWorkspace(t.prisma, 'report-batch-a');
    wsB = await seedWorkspace(t.prisma, 'report-batch-b');
  });
  afterAll(() => t?.close());

  /** The reports as stored, in the answer's shape, to compare with what the callers were told. */
  async function storedRows(ids: number[]): Promise<ReportRow[]> {
    const rows = await t.prisma.report.findMany({
      where: { id: { in: ids } },
      include: { subject: true, links: { include: { subject: true }, orderBy: { position: 'asc' } } },
    });
    return ids.map((id) => rows.find((r) => r.id === id)!) as ReportRow[];
  }
  /** Answers without the memory of their subjects (a later statement may have changed it since). */
  const withoutMemory = (rows: ReportRow[]) =>
    rows.map(({ subject: { memory: _m, ...subject }, links, ...row }) => ({
      ...row,
      subject,
      links: links.map(({ subject: { memory: _lm, ...linked }, ...link }) => ({ ...link, subject: linked })),
    }));

  it('writes 40 concurrent reports of two workspaces in a few statements, each caller answered with its own report', async () => {
    const client = countingClient(t.prisma);
    const batcher = new ReportBatcher(client, 1, 256);
    const inputs = Array.from({ length: 40 }, (_, i) =>
      report(
        i % 3 === 0 ? wsB : wsA,
        i % 2 ? 'domain' : 'ipaddress',
        i % 2 ? `host${i % 5}.example` : `192.0.2.${i % 4}`,
        {
          tags: i % 4 === 0 ? [] : ['zulu', `t${i}`, 'alpha'].slice(0, 1 + (i % 3)),
          relatedSubjects: Array.from({ length: i % 4 }, (_, j) => ({
            kind: j % 2 ? 'asn' : 'email',
            key: j % 2 ? String(64500 + i) : `u${j}@shared.example`,
            role: j ? 'linked' : 'sender',
          })),
        },
      ),
    );
    const rows = await Promise.all(inputs.map((input) => batcher.write(input)));

    expect(client.statements, 'one statement for the first call, one for the 39 queued behind it').toBe(2);
    for (const [i, row] of rows.entries()) expect(row, `call ${i}`).toEqual(expectedFor(inputs[i]!));
    expect(new Set(rows.map((r) => r.id)).size, 'every call its own report').toBe(40);
    const batched = rows.slice(1).map((r) => r.id);
    expect(batched, 'report ids drawn in input order').toEqual([...batched].sort((a, b) => a - b));
    expect(await storedRows(rows.map((r) => r.id)), 'stored as answered').toEqual(withoutMemory(rows));

    // Each workspace on its own subject nodes: the same key in both is two nodes, one per workspace.
    const nodes = new Map<string, number>();
    for (const row of rows) {
      for (const s of [row.subject, ...row.links.map((l) => l.subject)]) {
        const name = `${s.workspaceId}|${s.kind}|${s.key}`;
        expect(nodes.get(name) ?? s.id, name).toBe(s.id);
        nodes.set(name, s.id);
      }
    }
    expect(new Set(nodes.values()).size, 'one node per (workspace, kind, key)').toBe(nodes.size);
    expect(nodes.get(`${wsA}|email|u0@shared.example`)).not.toBe(nodes.get(`${wsB}|email|u0@shared.example`));
  });

  it('creates a new subject named by several reports of one batch once, numbering new subjects in request order', async () => {
    const batcher = new ReportBatcher(t.prisma, 1, 256);
    const first = batcher.write(report(wsA, 'domain', 'first-alone.example'));
    // keys sort in the opposite order to the requests: ids follow the requests, not the lock order
    const inputs = [
      report(wsA, 'domain', 'zz-shared.example', {
        relatedSubjects: [{ kind: 'email', key: 'yy@new.example', role: 'sender' }],
      }),
      report(wsA, 'url', 'https://xx.example/', {
        relatedSubjects: [{ kind: 'domain', key: 'zz-shared.example', role: 'linked' }],
      }),
      report(wsA, 'domain', 'ww.example', {
        relatedSubjects: [
          { kind: 'domain', key: 'zz-shared.example', role: 'linked' },
          { kind: 'email', key: 'yy@new.example', role: 'recipient' },
        ],
      }),
    ];
    const [, ...rows] = await Promise.all([first, ...inputs.map((input) => batcher.write(input))]);

    for (const [i, row] of rows.entries()) expect(row, `call ${i}`).toEqual(expectedFor(inputs[i]!));
    const shared = [rows[0]!.subject.id, rows[1]!.links[0]!.subject.id, rows[2]!.links[0]!.subject.id];
    expect(new Set(shared).size, 'one node for the shared subject').toBe(1);
    expect(rows[2]!.links[1]!.subject.id).toBe(rows[0]!.links[0]!.subject.id);
    const created = await t.prisma.subject.findMany({
      where: {
        workspaceId: wsA,
        key: { in: ['zz-shared.example', 'yy@new.example', 'https://xx.example/', 'ww.example'] },
      },
      orderBy: { id: 'asc' },
    });
    expect(created.map((s) => s.key)).toEqual([
      'zz-shared.example',
      'yy@new.example',
      'https://xx.example/',
      'ww.example',
    ]);
    expect(await storedRows(rows.map((r) => r.id))).toEqual(withoutMemory(rows));
  });

  it('writes a report naming the same subject as main and related, and a related subject in two roles', async () => {
    const batcher = new ReportBatcher(t.prisma, 1, 256);
    const input = report(wsB, 'ipaddress', '198.51.100.77', {
      tags: ['b', 'a'],
      relatedSubjects: [
        { kind: 'ipaddress', key: '198.51.100.77', role: 'linked' },
        { kind: 'asn', key: '64512', role: 'origin' },
        { kind: 'asn', key: '64512', role: 'linked' },
      ],
    });
    const rows = await Promise.all([
      batcher.write(report(wsB, 'domain', 'other.example')),
      batcher.write(input),
      batcher.write({ ...input, title: 'again' }),
    ]);

    for (const row of rows.slice(1)) {
      expect(row).toEqual(expectedFor({ ...input, title: row.title }));
      expect(row.links[0]!.subject.id, 'main and related are one node').toBe(row.subject.id);
      expect(row.links[1]!.subject.id).toBe(row.links[2]!.subject.id);
    }
    expect(rows[2]!.subject.id, 'both reports on the same nodes').toBe(rows[1]!.subject.id);
    expect(await storedRows(rows.map((r) => r.id))).toEqual(withoutMemory(rows));
  });

  it('fails only the report that cannot be written when a batch statement fails', async () => {
    const batcher = new ReportBatcher(t.prisma, 1, 256);
    const good = (n: number) =>
      report(wsA, 'domain', `ok-${n}.example`, {
        title: `ok ${n}`,
        tags: [`t${n}`],
        relatedSubjects: [{ kind: 'asn', key: '64496', role: 'origin' }],
      });
    const first = batcher.write(good(1)); // runs alone; the next three queue into one statement
    const results = await Promise.allSettled([
      first,
      batcher.write(good(2)),
      batcher.write({ ...good(3), workspaceId: 2_000_000_000 }),
      batcher.write(good(4)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    const titles = (
      await t.prisma.report.findMany({ where: { title: { startsWith: 'ok ' } }, select: { title: true } })
    )
      .map((r) => r.title)
      .sort();
    expect(titles).toEqual(['ok 1', 'ok 2', 'ok 4']);
    const written = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(await storedRows(written.map((r) => r.id))).toEqual(withoutMemory(written));
  });

  it('never deadlocks: concurrent batches of reports and ratings lock shared subjects in one order', async () => {
    // Two batchers of each kind, as two server processes would run; every failed statement is kept
    // (the row-by-row retry would otherwise hide a deadlock that a lucky retry got past).
    const failures: string[] = [];
    const client = {
      $queryRaw: ((...args: Parameters<typeof t.prisma.$queryRaw>) =>
        t.prisma.$queryRaw(...args).catch((e: unknown) => {
          failures.push(String(e));
          throw e;
        })) as typeof t.prisma.$queryRaw,
    };
    const reports = [new ReportBatcher(client), new ReportBatcher(client)];
    const ratings = [new RatingBatcher(client), new RatingBatcher(client)];
    for (let round = 0; round < 5; round++) {
      const ips = Array.from({ length: 30 }, (_, i) => `100.64.${round}.${i}`);
      const writes = Array.from({ length: 150 }, (_, i) => {
        const order = [...ips].sort(() => Math.random() - 0.5);
        return i % 3 === 0
          ? ratings[i % 2]!.write({ workspaceId: wsA, apiKeyId: 1, ip: order[0]!, rating: -1, note: '' })
          : reports[i % 2]!.write(
              report(wsA, 'ipaddress', order[0]!, {
                relatedSubjects: order.slice(1, 6).map((key) => ({ kind: 'ipaddress', key, role: 'linked' })),
              }),
            );
      });
      await Promise.all(writes);
    }
    expect(failures.slice(0, 1), 'no statement failed (40P01: deadlock detected)').toEqual([]);
    // every increment of the concurrent statements landed: the maintained memory is the history's count
    const ids = (
      await t.prisma.subject.findMany({
        where: { workspaceId: wsA, key: { startsWith: '100.64.' } },
        select: { id: true },
      })
    ).map((s) => s.id);
    expect(ids.length).toBeGreaterThan(100);
    expect(await maintainedMemory(t.prisma, ids)).toEqual(await recountMemory(t.prisma, ids));
  });

  it("answers each subject's memory as the statement left it: reports counted once per report, however it names the subject", async () => {
    const batcher = new ReportBatcher(t.prisma, 1, 256);
    const ip = '198.51.100.99';
    const [first, second] = await Promise.all([
      batcher.write(report(wsA, 'ipaddress', ip)),
      batcher.write(
        report(wsA, 'domain', 'memory.example', {
          relatedSubjects: [
            { kind: 'ipaddress', key: ip, role: 'linked' },
            { kind: 'ipaddress', key: ip, role: 'origin' },
          ],
        }),
      ),
    ]);
    expect(first!.subject.memory).toMatchObject({ reports: 1, revision: 1, good: 0, lastRatingId: null });
    expect(second!.links.map((l) => l.subject.memory)).toEqual([
      expect.objectContaining({ reports: 2, revision: 2 }),
      expect.objectContaining({ reports: 2, revision: 2 }),
    ]);
    expect(second!.subject.memory).toMatchObject({ reports: 1, revision: 1 });
  });
});
