import type { CreatedKey, KeyListing } from '../domain/access/keys.ts';

/** Human-readable output; `--json` prints the raw result instead. */
export function printHuman(command: string, result: unknown) {
  if (command === 'keys create') {
    const k = result as CreatedKey;
    console.log(`Created key "${k.name}" in workspace "${k.workspace}" (prefix ${k.prefix}).\n`);
    console.log(`  ${k.secret}\n`);
    console.log('This is the only time the secret is shown. Store it now; only its hash is kept.');
  } else if (command === 'keys list') {
    const rows = result as KeyListing[];
    if (rows.length === 0) { console.log('no keys'); return; }
    console.table(rows.map((k) => ({ workspace: k.workspace, name: k.name, prefix: k.prefix, created: k.created_at, 'last used': k.last_used_at ?? '-', status: k.status })));
  } else {
    console.log(typeof result === 'string' ? result : JSON.stringify(result, null, 2));
  }
}
