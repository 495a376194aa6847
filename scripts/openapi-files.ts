// The committed OpenAPI files and how each is made: openapi.json from the document the server builds, and the typed
// client's types from openapi.json with openapi-typescript. scripts/print-openapi.ts writes them; test/unit/openapi-file.test.ts
// fails when either is stale.
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { openApiDocument } from '../src/transport/rest/openapi.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
export const OPENAPI_FILE = path.join(ROOT, 'openapi.json');
export const CLIENT_TYPES_FILE = path.join(ROOT, 'test', 'contract', 'openapi-types.ts');

export function openApiText(): string {
  return JSON.stringify(openApiDocument(), null, 2) + '\n';
}

export async function clientTypesText(): Promise<string> {
  return astToString(await openapiTS(JSON.parse(openApiText()))) ;
}
