import { loadConfig, ConfigError, networkOptions } from '../config.ts';
import { openDatabase } from '../platform/db/database.ts';
import { establishPepper, resolvePepper } from '../domain/access/pepper.ts';
import { isAppError } from '../errors.ts';
import { callOwner } from '../transport/admin/socket.ts';
import { publishInvalidation } from '../platform/counters/invalidation.ts';
import { redisTargetOf } from '../platform/counters/redis-connection.ts';
import { runCommand } from '../transport/admin/commands.ts';
import { fileProblem, printBadLines, printHuman } from './output.ts';
import { UsageError } from './command-line.ts';
import type { FeedParseResult } from '../domain/feeds/parse.ts';
import { loadNetworkData } from '../domain/network/index.ts';
import { readFeedFile } from '../domain/feeds/read-file.ts';
import { createProgressWriter } from '../domain/feeds/progress.ts';
import path from 'node:path';
import { restrictUmask } from '../platform/db/data-dir.ts';
import { StartError } from '../platform/start/start-error.ts';
import { createLogger } from '../platform/log.ts';
import { backupTarget, printDb, restore, saveBackup } from './db-commands.ts';
import { moveDatabase, moveProgress, printMove, type MoveResult } from './db-move.ts';
import { BodyReply } from '../transport/admin/socket.ts';
import { feedsExitCode, printFeeds } from './feeds-output.ts';

restrictUmask(); // before anything is written: DATA_DIR is for this user only (platform/db/data-dir.ts)

/** How long a command waits for a starting server's admin socket (start-up takes seconds; more on a loaded machine). */
const SERVER_START_WAIT_MS = 60_000;

async function execute(command: string, args: Record<string, unknown>): Promise<unknown> {
  const config = loadConfig();
  // A server that owns the embedded database, even one still starting, runs the command inside itself.
  const reply = config.databaseUrl
    ? null
    : await callOwner(config.dataDir, command, args, {
        timeoutMs: SERVER_START_WAIT_MS,
        onWait: () => console.error('waiting for the server to finish starting…'),
      });
  if (reply) {
    if (!reply.ok) throw Object.assign(new Error(reply.message), { code: reply.error });
    return reply.body ? new BodyReply(reply.result, reply.body) : reply.result;
  }
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    preparedStatements: config.databasePreparedStatements,
    warn: (msg, fields) => console.error(`warning: ${msg} ${JSON.stringify(fields)}`),
  });
  const redisTarget = redisTargetOf(config);
  try {
    // db status and db backup show the database as it is: no migration, and no pepper (they hash no key).
    const dbCommand = command.startsWith('db ');
    if (!dbCommand) await db.migrate();
    return await runCommand(command, args, {
      db,
      dataDir: config.dataDir,
      feedFetch: config.feedFetch,
      pepper: dbCommand
        ? resolvePepper(config.apiKeyPepper, config.dataDir)
        : await establishPepper(db.prisma, config.apiKeyPepper, config.dataDir),
      network: () => loadNetworkData(networkOptions(config), config.networkImageDir),
      publicationsKept: config.publicationsKept,
      // Nobody else sees a command run here (on PostgreSQL): its audit line goes to this process's stderr, as JSON.
      audit: { write: createLogger(config.logLevel, (line) => process.stderr.write(line)).audit, via: 'cli' },
      ...(redisTarget
        ? {
            announce: (m: string) =>
              publishInvalidation(redisTarget, config.redisKeyPrefix, m).catch((e) => {
                console.error(
                  `warning: could not notify running servers (${(e as Error).message}); they follow within KEY_CACHE_TTL_MS`,
                );
              }),
          }
        : {}),
    });
  } finally {
    await db.close();
  }
}

/**
 * Feeds are parsed in the CLI process (progress on stderr: a bar on a terminal, lines otherwise), so only the
 * parsed entries travel to whichever process writes them.
 */
async function parseFeedLocally(args: Record<string, unknown>) {
  const file = args.file as string;
  const format = (args.format ?? 'plain') as string;
  if (format !== 'plain' && format !== 'csv') throw new UsageError('--format must be plain or csv', 'feeds import');
  const progress = createProgressWriter(process.stderr, { label: `reading ${file}` });
  const parsed = await readFeedFile(file, format, {
    ...(typeof args.column === 'string' ? { column: args.column } : {}),
    onProgress: (lines, bytes, total) => progress.update(lines, bytes, total),
  });
  progress.done();
  // The write of a long list takes a while too, and its process (this one or the server) answers only at the end.
  if (parsed.entries.length >= LONG_FEED && args['dry-run'] !== true)
    console.error(`writing ${parsed.entries.length.toLocaleString('en-US')} networks…`);
  args.source = path.resolve(file);
  args.parsed = parsed;
  args.format = format;
}

/** Entries from which an import says that it writes (below, it finishes before the line would help). */
const LONG_FEED = 5000;

/** Runs a parsed command line (cli/entry.ts parsed it, answered --help and --version, and checked every option):
 *  the exit code, or -1 for a command that keeps running (start, dev-provider). */
export async function main(command: string, args: Record<string, unknown>): Promise<number> {
  if (command === 'start') {
    await (await import('../main.ts')).serve();
    return -1;
  }
  if (command === 'dev-provider') {
    await (await import('./dev-provider.ts')).runDevProvider(args);
    return -1;
  }
  // The one command that reads its own environment variable: the key an agent host passes to the bridge it launches.
  if (command === 'mcp')
    return (await import('./mcp-bridge.ts')).runMcpBridge(args.url as string, process.env.RISK_API_KEY);
  if (command === 'feeds import') await parseFeedLocally(args);
  if (command === 'publish')
    console.error(
      'publishing: gathering reports, ratings and feeds, then writing the summaries (minutes on a large database)…',
    );
  // A feed's bad lines are reported with their numbers, never dropped silently; also when they got the import refused.
  const parsed = args.parsed as FeedParseResult | undefined;
  const backupFile = command === 'db backup' ? backupTarget(args.file) : null;
  let result =
    command === 'db restore'
      ? await restore(args, loadConfig())
      : command === 'db move'
        ? await moveDatabase(args, loadConfig(), moveProgress(process.stderr))
        : await execute(command, args).catch((e) => {
            if (parsed) printBadLines(parsed.errors, parsed.errorsOmitted);
            throw e;
          });
  if (backupFile && result instanceof BodyReply) result = await saveBackup(backupFile, result);
  if (parsed) result = { ...(result as object), bad_lines: parsed.errors, bad_lines_not_listed: parsed.errorsOmitted };
  if (args.json) console.log(JSON.stringify(result, null, 2));
  else if (command === 'db move') printMove(result as MoveResult);
  else if (!printDb(command, result) && !printFeeds(command, result)) printHuman(command, result);
  return feedsExitCode(command, result);
}

/** What the CLI prints for a failed command: one line (or one per problem), never a stack for what the operator can fix. */
export function reportFailure(e: unknown): void {
  const file = fileProblem(e);
  if (file) console.error(`error: ${file}`);
  else if (e instanceof ConfigError || e instanceof StartError)
    for (const line of e.message.split('\n')) console.error(`error: ${line}`);
  else if (isAppError(e) || (e as { code?: string }).code) console.error(`error: ${(e as Error).message}`);
  else console.error(e);
}
