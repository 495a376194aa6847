/**
 * A process's copy of the override rules (src/domain/overrides/rule-cache.ts), read from the table as another
 * process would: it never skips a commit that lands late, reads past its page size, and sees an expiry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OverrideCache } from '../../src/domain/overrides/rule-cache.ts';
import { createOverride, expireOverride, type Actor } from '../../src/domain/overrides/changes.ts';
import { createOverrideSchema } from '../../src/domain/overrides/schemas.ts';
import type { Hierarchy } from '../../src/domain/network/types.ts';
import { backendName, usingPostgres } from '../helpers/backend.ts';
import { openTestDatabase, seedWorkspace, type TestDatabase } from '../helpers/publishing-fixtures.ts';

const actor: Actor = { kind: 'api_key', id: 1, label: 'test' };
const at = (ip: string): Hierarchy => ({ ip, version: 4, special: null, subnetSource: 'none', dimensions: [] });

describe(`OverrideCache following the table (${backendName})`, () => {
  let t: TestDatabase;
  let ws1: number;
  let ws2: number;
  // this process's own copy is not the one under test: each test reads the table into a fresh copy
  const deps = () => ({ prisma: t.prisma, overrides: { apply: () => {} } });
  const create = (ws: number, target: string) =>
    createOverride(deps(), ws, createOverrideSchema.parse({ target, action: 'deny', reason: 'follow' }), actor, 'rest');
  beforeAll(async () => {
    t = await openTestDatabase();
    ws1 = await seedWorkspace(t.prisma, 'follow-1');
    ws2 = await seedWorkspace(t.prisma, 'follow-2');
  });
  afterAll(() => t?.close());

  it.runIf(usingPostgres)(
    'reads a commit that lands after a later transaction was already read (its id is below what was seen)',
    async () => {
      const copy = new OverrideCache(t.prisma);
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
          const [row] = await tx.$queryRaw<Array<{ xid: bigint }>>`SELECT pg_current_xact_id()::text::bigint AS xid`;
          await tx.overrideRule.create({
            data: {
              workspaceId: ws1,
              targetKind: 'ip',
              target: '192.0.2.61',
              action: 'deny',
              reason: 'early',
              authorKind: 'api_key',
              authorId: 1,
              authorLabel: 'test',
              writtenXid: BigInt(row!.xid),
            },
          });
          written();
          await held;
        },
        { timeout: 300_000 },
      );
      await wrote;
      const late = await create(ws2, '192.0.2.62'); // a later id, committed first
      await copy.catchUp();
      expect(copy.find(ws2, at('192.0.2.62'))?.id).toBe(late.id);
      expect(copy.find(ws1, at('192.0.2.61')), 'not committed yet').toBeNull();
      release();
      await early;
      await copy.catchUp();
      expect(copy.find(ws1, at('192.0.2.61'))?.reason).toBe('early');
    },
  );

  it('reads every row past its page size, and drops a rule once its expiry is read', async () => {
    const rules = [];
    for (let i = 0; i < 5; i++) rules.push(await create(ws1, `198.51.100.${i + 1}`));
    const copy = new OverrideCache(t.prisma, 2);
    await copy.catchUp();
    for (const r of rules) expect(copy.find(ws1, at(r.target))?.id).toBe(r.id);
    expect(copy.find(ws2, at(rules[0]!.target)), 'another workspace').toBeNull();
    await expireOverride(deps(), ws1, rules[0]!.id, actor, 'rest');
    await copy.catchUp();
    expect(copy.find(ws1, at(rules[0]!.target))).toBeNull();
    expect(copy.find(ws1, at(rules[1]!.target))?.id).toBe(rules[1]!.id);
  });

  it("reads a rule's own expiry as a time, so it stops applying when it passes without any change", async () => {
    const expiresAt = new Date(Date.now() + 3_600_000);
    const rule = await createOverride(
      deps(),
      ws2,
      createOverrideSchema.parse({
        target: 'AS64512',
        action: 'deny',
        reason: 'timed',
        expiresAt: expiresAt.toISOString(),
      }),
      actor,
      'rest',
    );
    const copy = new OverrideCache(t.prisma);
    await copy.catchUp();
    const h: Hierarchy = {
      ...at('203.0.113.1'),
      dimensions: [{ code: 'asn', reason: null, entity: { code: 'asn', key: 'AS64512', name: 'AS64512', size: 1 } }],
    };
    expect(copy.find(ws2, h, expiresAt.getTime() - 1)?.id).toBe(rule.id);
    expect(copy.find(ws2, h, expiresAt.getTime())).toBeNull();
  });
});
