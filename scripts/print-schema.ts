// Prints the Pothos schemas (committed; test/unit/schema-file.test.ts fails when one is stale):
// schema.graphql — the API-key schema of /graphql; schema.workspace.graphql — the session schema of /workspace/graphql.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { printSchema } from 'graphql';
import { schema } from '../src/transport/graphql/schema.ts';
import { workspaceSchema } from '../src/transport/web/graphql/schema.ts';

for (const [name, s] of [
  ['schema.graphql', schema],
  ['schema.workspace.graphql', workspaceSchema],
] as const) {
  const file = path.resolve(import.meta.dirname, '..', name);
  writeFileSync(file, `${printSchema(s)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}
