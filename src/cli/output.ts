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
  } else if (command === 'feeds import') {
    const r = result as { name: string; entries: number; errors: number; lines: number; replaced: boolean;
      bad_lines: Array<{ line: number; text: string; reason: string }>; bad_lines_not_listed: number };
    console.log(`${r.replaced ? 'Replaced' : 'Imported'} feed "${r.name}": ${r.entries} networks from ${r.lines} lines, ${r.errors} bad lines.`);
    for (const b of r.bad_lines) console.error(`  line ${b.line}: ${b.reason}: ${b.text}`);
    if (r.bad_lines_not_listed > 0) console.error(`  ... and ${r.bad_lines_not_listed} more bad lines not listed`);
  } else {
    console.log(typeof result === 'string' ? result : JSON.stringify(result, null, 2));
  }
}
