import type { Prisma } from '../../generated/prisma/client.ts';

export type SubjectRef = { kind: string; key: string };
type Tx = Prisma.TransactionClient;

/**
 * Finds or creates the workspace's subject nodes for the given (kind, key) pairs in one
 * statement. INSERT ... ON CONFLICT makes concurrent writers about the same new subject
 * converge on one row instead of racing a select-then-insert.
 * Returns ids in the order of `refs`.
 */
export async function upsertSubjects(tx: Tx, workspaceId: number, refs: SubjectRef[]): Promise<number[]> {
  // One row per distinct pair: ON CONFLICT DO UPDATE may not touch a row twice in one statement.
  const unique = [...new Map(refs.map((r) => [`${r.kind}\u0000${r.key}`, r])).values()];
  const kinds = unique.map((r) => r.kind);
  const keys = unique.map((r) => r.key);
  const rows = await tx.$queryRaw<Array<{ id: number; kind: string; key: string }>>`
    INSERT INTO "Subject" ("workspaceId", "kind", "key")
    SELECT ${workspaceId}, k, v FROM unnest(${kinds}::text[], ${keys}::text[]) AS t(k, v)
    ON CONFLICT ("workspaceId", "kind", "key") DO UPDATE SET "kind" = EXCLUDED."kind"
    RETURNING "id", "kind", "key"`;
  const byRef = new Map(rows.map((r) => [`${r.kind}\u0000${r.key}`, r.id]));
  return refs.map((r) => byRef.get(`${r.kind}\u0000${r.key}`)!);
}
