import { createHash } from 'node:crypto';

/**
 * Which SQL statements run as named prepared statements on PostgreSQL (the `statementNameGenerator`
 * of Prisma's pg adapter). A named statement is parsed once per connection and, after five runs,
 * may keep a generic plan that PostgreSQL stops re-planning; an unnamed one is parsed and planned on
 * every call.
 *
 * Only statements whose SQL text begins with the line `-- prepared` are named: the fixed, hot
 * statements of the service (the rating and report batch writes, the catch-ups of the IP memory and of
 * the override rules, each run by every process every second),
 * point lookups and array-parameter writes whose best plan does not depend on their values.
 * Planning the report batch's large CTE was most of PostgreSQL's share of a write. Everything else
 * stays unnamed on purpose: generic plans are blind to how skewed a workspace's rows are, and the
 * analyst reads suffered (docs/decisions/0006-prepared-statements-for-hot-writes.md).
 *
 * A name is the text's hash: every connection and process agrees, and two texts never share one.
 * The marked texts are fixed by the code, so the statements each connection keeps are few.
 */
const MARKED = /^\s*-- prepared\n/;

/** The adapter's name generator. database.ts leaves it out with DATABASE_PREPARED_STATEMENTS=false, for a pooler that cannot
 *  carry prepared statements (PgBouncer in transaction mode before 1.21). */
export function statementNames(): (query: { sql: string }) => string {
  const names = new Map<string, string>();
  return ({ sql }) => {
    if (!MARKED.test(sql)) return ''; // node-postgres' unnamed statement: parsed and planned for this call only
    let name = names.get(sql);
    if (name === undefined)
      names.set(sql, (name = `risk_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`));
    return name;
  };
}
