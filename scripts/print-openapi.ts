// Prints openapi.json and the typed client's types (see scripts/openapi-files.ts).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { CLIENT_TYPES_FILE, OPENAPI_FILE, clientTypesText, openApiText } from './openapi-files.ts';

for (const [file, text] of [
  [OPENAPI_FILE, openApiText()],
  [CLIENT_TYPES_FILE, await clientTypesText()],
] as const) {
  writeFileSync(file, text);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}
