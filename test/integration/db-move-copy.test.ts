import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { copyFields, copyTables, prepareSession } from '../../src/platform/db/move.ts';
import { pgliteRunner } from '../../src/platform/db/sql.ts';

/**
 * The copy under `db move`, between two in-memory databases (PGlite speaks the same COPY text format as
 * PostgreSQL; the move into a real PostgreSQL is db-move.test.ts): pages of two rows, so every page boundary falls
 * on a key holding what COPY must escape or SQL must quote, and the next page must start right after it.
 */
const AWKWARD = ["it's", 'back\\slash', 'tab\there', 'new\nline', 'carriage\rreturn', '\b\f\v', '\uFEFFbom', 'ключ'];
const SCHEMA = `
  CREATE TABLE parent (name text PRIMARY KEY, note text, data bytea, nums int[], meta jsonb);
  CREATE TABLE child (parent text REFERENCES parent(name), n int, at timestamptz, PRIMARY KEY (parent, n));
`;

describe('db move copy: keyset pages of COPY text', () => {
  const source = new PGlite();
  const target = new PGlite();
  beforeAll(async () => {
    for (const db of [source, target]) await db.exec(SCHEMA);
    for (const [i, name] of AWKWARD.entries()) {
      await source.query('INSERT INTO parent VALUES ($1, $2, $3, $4, $5)', [
        name,
        i % 2 ? null : `note of ${name}`,
        Buffer.from([0, i, 255, 92, 10]),
        [i, -i],
        { name, nested: { quote: "'", backslash: '\\' } },
      ]);
      for (let n = 0; n < 3; n++)
        await source.query('INSERT INTO child VALUES ($1, $2, $3)', [name, n, new Date(Date.UTC(2026, 0, 1, n))]);
    }
  }, 300_000);
  afterAll(async () => {
    await source.close();
    await target.close();
  });

  it('copies every row across page boundaries on awkward keys, and the read-back checksum matches', async () => {
    const [from, to] = [pgliteRunner(source), pgliteRunner(target)];
    await prepareSession(from);
    await prepareSession(to);
    const seen: string[] = [];
    const copies = await copyTables(from, to, (phase, table, done) => seen.push(`${phase} ${table} ${done}`), 2);
    expect(copies.map((c) => [c.table, c.rows, c.targetRows])).toEqual([
      ['parent', AWKWARD.length, AWKWARD.length],
      ['child', AWKWARD.length * 3, AWKWARD.length * 3],
    ]);
    for (const c of copies) expect(c.targetChecksum, c.table).toBe(c.checksum);
    const all = 'SELECT p.*, c.n, c.at FROM parent p JOIN child c ON c.parent = p.name ORDER BY p.name, c.n';
    expect((await target.query(all)).rows).toEqual((await source.query(all)).rows);
    expect(seen).toContain(`copying parent ${AWKWARD.length}`);
    expect(seen).toContain(`verifying child ${AWKWARD.length * 3}`);
  }, 120_000);

  it('a target that differs in one value gives another checksum', async () => {
    const other = new PGlite();
    try {
      await other.exec(SCHEMA);
      const [from, to] = [pgliteRunner(source), pgliteRunner(other)];
      await prepareSession(from);
      await prepareSession(to);
      await other.exec(`CREATE FUNCTION flip() RETURNS trigger AS $$ BEGIN NEW.note := 'changed'; RETURN NEW; END $$
        LANGUAGE plpgsql; CREATE TRIGGER flip BEFORE INSERT ON parent FOR EACH ROW EXECUTE FUNCTION flip()`);
      const [parent] = await copyTables(from, to, undefined, 3);
      expect(parent!.targetRows).toBe(parent!.rows);
      expect(parent!.targetChecksum).not.toBe(parent!.checksum);
    } finally {
      await other.close();
    }
  }, 300_000);

  it('reads back the fields of a COPY text line, escapes undone', () => {
    expect(copyFields('a\\tb\t\\N\tc\\\\d\\ne')).toEqual(['a\tb', null, 'c\\d\ne']);
  });
});
