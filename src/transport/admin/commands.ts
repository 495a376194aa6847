import type { Database } from '../../platform/db/database.ts';
import type { KeyVerifier } from '../../domain/access/verifier.ts';
import { AppError } from '../../errors.ts';
import { createApiKey, listApiKeys, revokeApiKey, setWorkspaceTier } from '../../domain/access/keys.ts';
import { importFeed, normalizeFeedName, removeFeed } from '../../domain/feeds/store.ts';
import { listFeedsWithSchedules, removeFeedSchedule, saveFeedSchedule } from '../../domain/feeds/schedule.ts';
import { fetchFeed } from '../../domain/feeds/fetch-feed.ts';
import type { DownloadLimits } from '../../domain/feeds/download.ts';
import type { FeedFormat, FeedParseResult } from '../../domain/feeds/parse.ts';
import { publish, withPublishLock } from '../../domain/publishing/index.ts';
import type { NetworkIndex } from '../../domain/network/index.ts';
import type { PublicationCache } from '../../domain/publishing/index.ts';
import { listTiers } from '../../domain/metering/tiers.ts';
import { backupArchive } from '../../platform/db/backup.ts';
import { BodyReply } from './socket.ts';
import { audited, type Audit } from './audit.ts';
import { Mailer } from '../../domain/mail/outbox.ts';
import { MODEL_REPORT_DEFAULTS, modelReport, parseDays } from '../../domain/quality/model-report.ts';

/**
 * Operator commands as plain functions of (arguments, services). The CLI runs them in its
 * own process, or — when a server owns the embedded database — inside that server through
 * the admin socket; either way the same code runs.
 */
export type CommandContext = {
  db: Database;
  /** DATA_DIR: a backup takes its secrets/ along. */
  dataDir: string;
  /** Limits of one feed download (FEED_FETCH_MAX_BYTES, FEED_FETCH_TIMEOUT_MS). */
  feedFetch: DownloadLimits;
  pepper: string;
  /** The network index (the server passes its loaded one; the CLI loads it on first use). */
  network: () => Promise<NetworkIndex>;
  publicationsKept: number;
  verifier?: KeyVerifier;
  /** Tells every process to drop cached keys/tiers (Redis pub/sub); absent without Redis. */
  announce?: (message: string) => Promise<void>;
  /** The server's publication cache, refreshed at once after a publish it ran. */
  publications?: PublicationCache;
  /** Where audit lines go (audit.ts), and which way the command came: the CLI's own process or the admin socket. */
  audit?: { write: Audit; via: 'cli' | 'admin socket' };
};
type Args = Record<string, unknown>;

function str(args: Args, name: string, required = true): string | undefined {
  const v = args[name];
  if (v === undefined || v === true) {
    if (required) throw new AppError('invalid_request', `--${name} is required`);
    return undefined;
  }
  return String(v);
}

const commands: Record<string, (args: Args, ctx: CommandContext) => Promise<unknown>> = {
  'db migrate': async (_a, { db }) => db.migrate(),
  'db status': async (_a, { db }) => ({ backend: db.kind, ...(await db.status()) }),
  'db backup': async (_a, { db, dataDir }) => {
    if (!db.snapshot)
      throw new AppError(
        'invalid_request',
        'DATABASE_URL is set: back PostgreSQL up with pg_dump -Fc and restore it with pg_restore (docs/operations.md, "Backups").',
      );
    const { manifest, body } = backupArchive(await db.snapshot(), dataDir);
    return new BodyReply(manifest, body);
  },
  'keys create': async (a, { db, pepper }) =>
    createApiKey(db.prisma, pepper, {
      workspace: str(a, 'workspace')!,
      name: str(a, 'name')!,
      tier: str(a, 'tier', false),
    }),
  'keys list': async (a, { db }) => listApiKeys(db.prisma, { workspace: str(a, 'workspace', false) }),
  'keys revoke': async (a, { db, verifier, announce }) => {
    const prefix = str(a, 'prefix')!;
    const revoked = await revokeApiKey(db.prisma, prefix);
    verifier?.invalidate(prefix);
    await announce?.(`key:${prefix}`); // other processes: at once, or within the key cache TTL at worst
    return revoked;
  },
  'feeds import': async (a, { db }) =>
    importFeed(db.prisma, {
      name: str(a, 'name')!,
      format: (str(a, 'format', false) ?? 'plain') as FeedFormat,
      weight: a.weight === undefined ? undefined : Number(a.weight),
      source: str(a, 'source')!,
      parsed: a.parsed as FeedParseResult,
      allowPartial: a['allow-partial'] === true,
      dryRun: a['dry-run'] === true,
    }),
  'feeds add': async (a, { db, feedFetch }) => {
    const schedule = await saveFeedSchedule(db.prisma, {
      name: str(a, 'name')!,
      url: str(a, 'url')!,
      every: str(a, 'every')!,
      format: str(a, 'format', false),
      column: str(a, 'column', false),
      weight: a.weight === undefined ? undefined : Number(a.weight),
      allowPartial: a['allow-partial'] === true,
    });
    return fetchFeed(db.prisma, schedule.name, feedFetch); // at once: the operator sees whether the URL works
  },
  'feeds fetch': async (a, { db, feedFetch }) => fetchFeed(db.prisma, str(a, 'name')!, feedFetch),
  'feeds list': async (_a, { db }) => listFeedsWithSchedules(db.prisma),
  'feeds remove': async (a, { db }) => {
    const name = normalizeFeedName(str(a, 'name')!);
    const unscheduled = await removeFeedSchedule(db.prisma, name);
    return removeFeed(db.prisma, name).catch((e) => {
      if (unscheduled) return { name, entries: 0 }; // fetched from a URL, never imported yet
      throw e;
    });
  },
  publish: async (_a, { db, network, publicationsKept, publications }) => {
    const outcome = await withPublishLock(db.prisma, async () =>
      publish(db.prisma, await network(), { keep: publicationsKept }),
    );
    if (!outcome.acquired)
      throw new AppError('service_unavailable', 'another publication is in progress; try again when it has finished');
    await publications?.refresh();
    return outcome.value;
  },
  'tiers list': async (_a, { db }) => listTiers(db.prisma),
  'model report': async (a, { db, network }) => {
    const name = str(a, 'workspace', false);
    let workspaceId: number | undefined;
    if (name !== undefined) {
      const row = await db.prisma.workspace.findUnique({ where: { name }, select: { id: true } });
      if (!row) throw new AppError('not_found', `no workspace named "${name}"`);
      workspaceId = row.id;
    }
    return modelReport(db.prisma, await network(), {
      sinceDays: parseDays('--since', str(a, 'since', false), MODEL_REPORT_DEFAULTS.sinceDays),
      windowDays: parseDays('--window', str(a, 'window', false), MODEL_REPORT_DEFAULTS.windowDays),
      ...(workspaceId !== undefined ? { workspaceId } : {}),
    });
  },
  'mail held': async (_a, { db }) => Mailer.held(db.prisma),
  'workspaces set-tier': async (a, { db, verifier, announce }) => {
    const result = await setWorkspaceTier(db.prisma, str(a, 'workspace')!, str(a, 'tier')!);
    verifier?.invalidate();
    await announce?.('all');
    return result;
  },
};

export const COMMAND_NAMES = Object.keys(commands);

export async function runCommand(name: string, args: Args, ctx: CommandContext): Promise<unknown> {
  const command = commands[name];
  if (!command) throw new AppError('not_found', `unknown command "${name}"`);
  return audited(name, args, ctx.audit?.write, ctx.audit?.via ?? 'cli', () => command(args, ctx));
}
