import type { CreatedKey, KeyListing } from '../domain/access/keys.ts';
import type { ImportFeedResult } from '../domain/feeds/store.ts';
import type { FeedError } from '../domain/feeds/parse.ts';

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
    const r = result as ImportFeedResult & { bad_lines: FeedError[]; bad_lines_not_listed: number };
    const was = r.previousEntries === null ? '' : ` (it held ${r.previousEntries})`;
    const counts = `${r.entries} networks from ${r.lines} lines, ${r.errors} bad lines, weight ${r.weight}`;
    if (r.dryRun) console.log(`Dry run: would ${r.replaced ? 'replace' : 'create'} feed "${r.name}"${was}: ${counts}. Nothing was changed.`);
    else console.log(`${r.replaced ? 'Replaced' : 'Imported'} feed "${r.name}"${was}: ${counts}.`);
    printBadLines(r.bad_lines, r.bad_lines_not_listed);
  } else if (command === 'mail held') {
    const held = result as Array<{ id: number; to: string; subject: string; createdAt: string | Date; text: string }>;
    if (held.length === 0) console.log('no held mail (with SMTP_URL set, mail is sent, not held)');
    for (const m of held) console.log(`#${m.id} ${new Date(m.createdAt).toISOString()} to ${m.to}: ${m.subject}\n\n${m.text}\n`);
  } else {
    console.log(typeof result === 'string' ? result : JSON.stringify(result, null, 2));
  }
}

/** A feed's bad lines, with their numbers, to stderr. */
export function printBadLines(lines: FeedError[], notListed: number) {
  for (const b of lines) console.error(`  line ${b.line}: ${b.reason}: ${b.text}`);
  if (notListed > 0) console.error(`  ... and ${notListed} more bad lines not listed`);
}
