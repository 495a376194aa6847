import { describe, expect, it } from 'vitest';
import { statementNames } from '../../src/platform/db/statement-names.ts';

describe('prepared statement names', () => {
  it('names a text that begins with the line "-- prepared", the same name every time', () => {
    const nameOf = statementNames();
    const sql = '-- prepared\nSELECT 1 WHERE $1::int > 0';
    const name = nameOf({ sql });
    expect(name).toMatch(/^risk_[0-9a-f]{24}$/);
    expect(nameOf({ sql })).toBe(name);
    expect(statementNames()({ sql }), 'another process or connection agrees').toBe(name);
    expect(
      nameOf({ sql: '\n    -- prepared\n    SELECT 1 WHERE $1::int > 0' }),
      'indentation before the mark is allowed',
    ).toMatch(/^risk_/);
  });

  it('gives two marked texts two names', () => {
    const nameOf = statementNames();
    expect(nameOf({ sql: '-- prepared\nSELECT 1' })).not.toBe(nameOf({ sql: '-- prepared\nSELECT 2' }));
  });

  it('leaves every other text unnamed (node-postgres plans an unnamed statement for its call only)', () => {
    const nameOf = statementNames();
    for (const sql of [
      'SELECT 1',
      'SELECT 1 -- prepared\n',
      '-- prepared statements are not used here',
      '/* prepared */ SELECT 1',
    ]) {
      expect(nameOf({ sql }), sql).toBe('');
    }
  });
});
