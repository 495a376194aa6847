// Prints the Pothos schema to schema.graphql (committed; test/unit/schema-file.test.ts fails when stale).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { printSchema } from 'graphql';
import { schema } from '../src/graphql/schema.ts';

const file = path.resolve(import.meta.dirname, '../schema.graphql');
writeFileSync(file, printSchema(schema) + '\n');
console.log(`wrote ${path.relative(process.cwd(), file)}`);
