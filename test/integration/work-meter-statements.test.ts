import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { backendName } from '../helpers/backend.ts';
import { AppError, isAppError } from '../../src/errors.ts';
import { runAsWork, WorkBudget } from '../../src/platform/work-budget.ts';
import { EntityIpIndex } from '../../src/domain/analyst/entity-ips.ts';
import { defineOperation, runOperation } from '../../src/transport/graphql/fixed-operation.ts';
import type { RequestContext } from '../../src/transport/http/request-context.ts';

/**
 * The meter below the resolvers (platform/db/metered-adapter.ts, db/pglite-turns.ts): every database statement
 * is the work of the request running it, checked before it starts and charged with the rows it returns, so work no
 * loop of ours meters is bounded too — statements queued while their request was answered, the shared read of the
 * entity index, the fixed operations the MCP tools run.
 */
const IPS = 1_200; // more than two chunks of the entity index's read

describe(`database statements metered by their request (${backendName})`, () => {
  let s: TestServer;
  let workspaceId: number;

  const budget = (maxUnits = 1_000_000, deadlineIn = 60_000) =>
    new WorkBudget({
      maxUnits,
      deadline: performance.now() + deadlineIn,
      overBudget: (spent, max) =>
        new AppError('query_too_complex', 'over', undefined, { limit: 'maxWorkUnits', maximum: max, actual: spent }),
      pastDeadline: () => new AppError('query_timeout', 'late'),
    });
  const count = async () =>
    Number(
      (
        await s.app.db.prisma.$queryRawUnsafe<Array<{ n: number }>>(
          `SELECT count(*)::int AS n FROM "Subject" WHERE "workspaceId" = $1 AND kind = 'email'`,
          workspaceId,
        )
      )[0]!.n,
    );

  beforeAll(async () => {
    s = await startTestServer();
    await s.createKey('statements');
    const p = s.app.db.prisma;
    workspaceId = (await p.workspace.findUniqueOrThrow({ where: { name: 'statements' } })).id;
    await p.$executeRawUnsafe(
      `INSERT INTO "Subject" ("workspaceId", kind, key)
       SELECT $1, 'ipaddress', host('1.0.0.0'::inet + g::bigint * 1398101) FROM generate_series(1, ${IPS}) g`,
      workspaceId,
    );
  });
  afterAll(() => s?.close());

  it('charges each statement one unit plus a unit per row it returned', async () => {
    const work = budget();
    // Prisma's promises start when awaited: inside the work, as a resolver awaits them.
    const rows = await runAsWork(
      work,
      async () => await s.app.db.prisma.subject.findMany({ where: { workspaceId }, select: { id: true } }),
    );
    expect(rows).toHaveLength(IPS);
    expect(work.units).toBe(1 + IPS);
  });

  it('runs none of the statements a request issued once its work has ended before they start', async () => {
    const before = await count();
    const work = budget();
    const writes = runAsWork(work, () =>
      Array.from(
        { length: 20 },
        async (_, i) =>
          await s.app.db.prisma.$executeRawUnsafe(
            `INSERT INTO "Subject" ("workspaceId", kind, key) VALUES ($1, 'email', $2)`,
            workspaceId,
            `queued-${i}@example.com`,
          ),
      ),
    );
    work.end(new AppError('query_timeout', 'answered')); // the request answered while its statements were queued
    const outcomes = await Promise.allSettled(writes);
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    expect(await count()).toBe(before);
  });

  it('never refuses the end of a transaction: a read refused inside one leaves the connection usable', async () => {
    const work = budget();
    const refused = runAsWork(
      work,
      async () =>
        await s.app.db.prisma.$transaction(async (tx) => {
          await tx.subject.count({ where: { workspaceId } });
          work.end(new AppError('query_timeout', 'late'));
          return await tx.subject.count({ where: { workspaceId } });
        }),
    );
    await expect(refused).rejects.toThrow();
    expect(await s.app.db.prisma.subject.count({ where: { workspaceId } })).toBeGreaterThanOrEqual(IPS);
  });

  it("charges the entity index's shared read to each request waiting, refusing one over its budget, not the others", async () => {
    const index = new EntityIpIndex(s.app.db.prisma, s.app.services.network);
    const country = s.app.services.network.resolve('1.21.85.1').dimensions.find((d) => d.code === 'country')!;
    const small = budget(600); // less than the read's three chunks
    const [refused, unmetered] = await Promise.allSettled([
      runAsWork(small, () => index.ids(workspaceId, 'country', country.entity!.key)),
      index.ids(workspaceId, 'country', country.entity!.key),
    ]);
    expect(refused.status).toBe('rejected');
    const reason = (refused as PromiseRejectedResult).reason;
    expect(isAppError(reason) && reason.code).toBe('query_too_complex');
    // The lookup outside any request got the whole read, as a fresh index answers it.
    expect(unmetered.status).toBe('fulfilled');
    const fresh = await new EntityIpIndex(s.app.db.prisma, s.app.services.network).ids(
      workspaceId,
      'country',
      country.entity!.key,
    );
    expect((unmetered as PromiseFulfilledResult<number[]>).value).toEqual(fresh);
    expect(fresh.length).toBeGreaterThan(0);
  });

  it('answers a fixed operation (the MCP tools) past its deadline with the coded refusal', async () => {
    const op = defineOperation('subjectKey', 'query { subject(kind: email, key: "nobody@example.com") { key } }');
    const ctx = {
      prisma: s.app.db.prisma,
      services: s.app.services,
      viewer: {
        workspaceId,
        workspaceName: 'statements',
        tier: 'free',
        apiKeyId: 0,
        keyName: 'k',
        keyPrefix: 'p',
      },
      requestId: 'late',
      via: 'mcp',
      clientIp: '127.0.0.1',
      arrivedAt: performance.now() - 60_000, // arrived a minute ago: its ceiling has passed
    } as RequestContext;
    const refused = await runOperation(op, {}, ctx).catch((e: unknown) => e);
    expect(isAppError(refused) && refused.code).toBe('query_timeout');
  });
});
