import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { statementsTakeTurns } from '../../src/platform/db/pglite-turns.ts';

/**
 * The embedded connection's turns (pglite-turns.ts): one statement per round of the event loop, so other I/O
 * (/healthz) is served between any two. Rounds are counted by an immediate that re-queues itself: two statements
 * that end in the same round ran back to back without the event loop going round.
 */
describe('embedded statements take turns', () => {
  let db: PGlite;
  let round = 0;
  let counting = true;
  const countRounds = () => {
    round++;
    if (counting) setImmediate(countRounds);
  };

  beforeAll(async () => {
    db = new PGlite();
    await db.waitReady;
    statementsTakeTurns(db);
    await db.exec('CREATE TABLE t (id int)');
    countRounds();
  });
  afterAll(async () => {
    counting = false;
    await db?.close();
  });

  const distinct = (rounds: number[]) => new Set(rounds).size;

  it('runs statements issued at once one per round', async () => {
    const ended: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, () => db.query('SELECT count(*) FROM t').then(() => ended.push(round))),
    );
    expect(distinct(ended)).toBe(20);
  });

  it('holds the statements issued during a transaction until it ends, then runs them one per round', async () => {
    const ended: number[] = [];
    let outside: Promise<unknown>[] = [];
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO t VALUES (1)');
      // Issued while the transaction holds the connection (a write of another request in flight).
      outside = Array.from({ length: 20 }, () => db.query('SELECT count(*) FROM t').then(() => ended.push(round)));
      await new Promise((r) => setImmediate(r));
      await tx.query('INSERT INTO t VALUES (2)');
      expect(ended).toEqual([]);
    });
    await Promise.all(outside);
    // Before, all twenty had queued in PGlite's own lock and ran back to back as it was released: one round.
    expect(distinct(ended)).toBe(20);
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM t')).rows[0]!.n).toBe(2);
  });

  it('lets a transaction begin only between statements, and a failed statement hand the turn on', async () => {
    const order: string[] = [];
    const read = db.query('SELECT 1').then(() => order.push('read'));
    const tx = db.transaction(async (t) => {
      order.push('begin');
      await t.query('SELECT 1');
    });
    const bad = db.query('SELECT * FROM missing').catch(() => order.push('refused'));
    const after = db.query('SELECT 1').then(() => order.push('after'));
    await Promise.all([read, tx, bad, after]);
    expect(order).toEqual(['read', 'begin', 'refused', 'after']);
  });
});
