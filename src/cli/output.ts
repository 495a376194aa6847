import type { CreatedKey, KeyListing } from '../domain/access/keys.ts';
import type { ImportFeedResult } from '../domain/feeds/store.ts';
import type { FeedListing } from '../domain/feeds/schedule.ts';
import type { FeedError } from '../domain/feeds/parse.ts';
import type { MigrationResult } from '../platform/db/migrate.ts';
import type { PublishResult } from '../domain/publishing/index.ts';
import type { ModelReport } from '../domain/quality/model-report.ts';
import type { tierJson } from '../domain/metering/tiers.ts';

/**
 * Human-readable output of each command; `--json` prints the raw result instead (the stable form for
 * scripts). Results that crossed the admin socket arrive as JSON, so dates may be strings here.
 */
type Row = Record<string, string>;

/** Rows as aligned columns under upper-case headers (like `docker ps`), "-" for an empty cell. */
export function formatTable(rows: Row[]): string {
  const columns = Object.keys(rows[0] ?? {});
  const cells = [columns.map((c) => c.toUpperCase()), ...rows.map((r) => columns.map((c) => r[c] || '-'))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)));
  return cells
    .map((line) => line.map((cell, i) => (i === line.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '))
    .join('\n');
}

const day = (d: Date | string | null | undefined) =>
  d ? `${new Date(d).toISOString().replace('T', ' ').slice(0, 16)} UTC` : 'never';

/** One row per feed: the columns of `feeds list` (a feed read from a URL shows the URL as its source). */
export function feedRows(feeds: FeedListing[]): Row[] {
  return feeds.map((f) => ({
    name: f.name,
    format: f.format,
    weight: String(f.weight),
    entries: f.entries.toLocaleString('en-US'),
    'bad lines': f.errors.toLocaleString('en-US'),
    imported: day(f.importedAt),
    source: f.schedule?.url ?? f.source,
  }));
}

const keyRows = (keys: KeyListing[]): Row[] =>
  keys.map((k) => ({
    workspace: k.workspace,
    name: k.name,
    prefix: k.prefix,
    status: k.status,
    created: day(k.created_at),
    'last used': day(k.last_used_at),
  }));

const money = (cents: number) => (cents === 0 ? 'free' : `$${(cents / 100).toFixed(2)}/month`);
const tierRows = (tiers: Array<ReturnType<typeof tierJson>>): Row[] =>
  tiers.map((t) => ({
    code: t.code,
    name: t.name,
    score: t.score_eligible ? 'yes' : 'no',
    'score/day': t.daily_limit.toLocaleString('en-US'),
    'burst/s': String(t.burst_per_second),
    'reports/day': t.direct_report_daily_limit.toLocaleString('en-US'),
    'agent/day': t.agent_daily_limit.toLocaleString('en-US'),
    price: money(t.price_cents),
  }));

function printImport(r: ImportFeedResult & { bad_lines: FeedError[]; bad_lines_not_listed: number }) {
  const was = r.previousEntries === null ? '' : ` (it held ${r.previousEntries})`;
  const counts = `${r.entries} networks from ${r.lines} lines, ${r.errors} bad lines, weight ${r.weight}`;
  if (r.dryRun)
    console.log(
      `Dry run: would ${r.replaced ? 'replace' : 'create'} feed "${r.name}"${was}: ${counts}. Nothing was changed.`,
    );
  else console.log(`${r.replaced ? 'Replaced' : 'Imported'} feed "${r.name}"${was}: ${counts}.`);
  printBadLines(r.bad_lines, r.bad_lines_not_listed);
}

// biome-ignore lint/suspicious/noConfusingVoidType: a printer returns its text, or nothing when it printed itself
const HUMAN: Record<string, (result: never) => string | void> = {
  'keys create': (k: CreatedKey) =>
    `Created key "${k.name}" in workspace "${k.workspace}" (prefix ${k.prefix}).\n\n  ${k.secret}\n\n` +
    'This is the only time the secret is shown. Store it now; only its hash is kept.',
  'keys list': (keys: KeyListing[]) => (keys.length ? formatTable(keyRows(keys)) : 'no keys'),
  'keys revoke': (k: KeyListing) =>
    `Key ${k.prefix} ("${k.name}", workspace "${k.workspace}") is revoked since ${day(k.revoked_at)}.`,
  'workspaces set-tier': (r: { workspace: string; tier: string }) =>
    `Workspace "${r.workspace}" is now on tier ${r.tier}.`,
  'model report': (r: ModelReport) => formatModelReport(r),
  'tiers list': (tiers: Array<ReturnType<typeof tierJson>>) => formatTable(tierRows(tiers)),
  'feeds import': printImport,
  'feeds remove': (r: { name: string; entries: number }) =>
    `Removed feed "${r.name}" (${r.entries} networks); its listings leave the next publication.`,
  publish: (r: PublishResult) =>
    `Published version ${r.version}: ${r.entities.global.toLocaleString('en-US')} global and ` +
    `${r.entities.contextual.toLocaleString('en-US')} workspace summaries from ${r.stats.reports} reports, ${r.stats.ratings} ratings ` +
    `and ${r.stats.feedEntries.toLocaleString('en-US')} feed entries in ${(r.ms / 1000).toFixed(1)} s.`,
  'mail held': (held: Array<{ id: number; to: string; subject: string; createdAt: string | Date; text: string }>) =>
    held.length
      ? held
          .map((m) => `#${m.id} ${new Date(m.createdAt).toISOString()} to ${m.to}: ${m.subject}\n\n${m.text}\n`)
          .join('\n')
      : 'no held mail (with SMTP_URL set, mail is sent, not held)',
  'db migrate': (r: MigrationResult) =>
    (r.applied.length ? `Applied ${r.applied.length} migrations: ${r.applied.join(', ')}.` : 'Nothing to apply') +
    ` (${r.alreadyApplied} already applied).`,
};

/** Prints a command's result for a person. */
export function printHuman(command: string, result: unknown) {
  const human = HUMAN[command];
  const text = human ? human(result as never) : JSON.stringify(result, null, 2);
  if (typeof text === 'string') console.log(text);
}

/** A feed's bad lines, with their numbers, to stderr. */
export function printBadLines(lines: FeedError[], notListed: number) {
  for (const b of lines) console.error(`  line ${b.line}: ${b.reason}: ${b.text}`);
  if (notListed > 0) console.error(`  ... and ${notListed} more bad lines not listed`);
}

/** Node's errors about a file (ENOENT, EACCES, EISDIR, …) as one line naming the file, or null for other errors. */
export function fileProblem(e: unknown): string | null {
  const err = e as NodeJS.ErrnoException;
  if (typeof err?.code !== 'string' || !/^E[A-Z]+$/.test(err.code) || typeof err.path !== 'string') return null;
  // "ENOENT: no such file or directory, stat 'x'" → "x: no such file or directory"
  return `${err.path}: ${err.message.replace(/^E[A-Z]+: /, '').replace(/, \w+ '.*'$/, '')}`;
}

const share = (x: number | null) => (x === null ? 'n/a' : `${(100 * x).toFixed(1)}%`);

/** The model report for a person: one row per level, then early warning and AUC. */
export function formatModelReport(r: ModelReport): string {
  const scope = r.workspace === null ? 'the deployment (community reports and feeds)' : `workspace "${r.workspace}"`;
  if (r.instants.length === 0)
    return `No sample instant: --since ${r.sinceDays}d leaves no day whose ${r.windowDays}-day window has ended.`;
  const rows = r.levels.map((l) => ({
    level: l.level,
    scored: String(l.scored),
    'reported bad': String(l.reportedBad),
    precision: share(l.precision),
  }));
  return [
    `Model report for ${scope}: ${r.ips} IPs, each sampled once at one of ${r.instants.length} daily instants ` +
      `(${r.instants[0]!.slice(0, 10)} to ${r.instants.at(-1)!.slice(0, 10)}); reported bad within ${r.windowDays} days after.`,
    formatTable(rows),
    `Early warning: ${r.earlyWarning.warned} of ${r.earlyWarning.cases} IPs first reported bad were already medium or ` +
      `higher (${share(r.earlyWarning.share)}). ROC AUC: ${r.auc === null ? 'n/a' : r.auc.toFixed(3)}.`,
  ].join('\n');
}
