import { parseArgs } from 'node:util';
import { loadConfig, ConfigError, networkOptions } from '../config.ts';
import { openDatabase } from '../platform/db/database.ts';
import { resolvePepper } from '../domain/access/pepper.ts';
import { isAppError } from '../errors.ts';
import { callOwner } from './admin-socket.ts';
import { publishInvalidation } from '../platform/counters/invalidation.ts';
import { COMMAND_NAMES, runCommand } from './commands.ts';
import { printBadLines, printHuman } from './output.ts';
import type { FeedParseResult } from '../domain/feeds/parse.ts';
import { loadNetworkData } from '../domain/network/index.ts';
import { readFeedFile } from '../domain/feeds/read-file.ts';
import { createProgressWriter } from '../domain/feeds/progress.ts';
import path from 'node:path';
import { restrictUmask } from '../platform/db/data-dir.ts';
import { createLogger } from '../platform/log.ts';

restrictUmask(); // before anything is written: DATA_DIR is for this user only (platform/db/data-dir.ts)

const USAGE = `risk-api — operator commands (work whether or not the server is running)

  risk-api start                                   start the server (same as npm start)
  risk-api db migrate                              apply pending database migrations
  risk-api keys create --workspace NAME --name LABEL [--tier TIER] [--json]
  risk-api keys list [--workspace NAME] [--json]
  risk-api keys revoke PREFIX [--json]
  risk-api workspaces set-tier NAME TIER [--json]
  risk-api tiers list [--json]
  risk-api mail held [--json]                      the newest messages held without SMTP_URL, with their text
  risk-api feeds import FILE --name NAME [--format plain|csv] [--column COL] [--weight W] [--allow-partial] [--dry-run] [--json]
                                                   refused (nothing changed, exit 1) when no line is valid or more than
                                                   10% of the lines holding data are bad (--allow-partial accepts the latter);
                                                   a re-import keeps the feed's weight unless --weight is given
  risk-api feeds list [--json]
  risk-api feeds remove NAME [--json]
  risk-api publish [--json]                        compute and publish a new set of risk summaries
  risk-api dev-provider [--port 8089] [--webhook-url URL]  local PayPal test double (development only)
  risk-api mcp --url URL                           stdio bridge to the server's MCP endpoint (key from RISK_API_KEY)

Configuration comes from the same environment variables as the server (DATA_DIR, DATABASE_URL, ...).`;

/** How long a command waits for a starting server's admin socket (start-up takes seconds; more on a loaded machine). */
const SERVER_START_WAIT_MS = 60_000;

/** Positional arguments each command accepts, by name. */
const POSITIONALS: Record<string, string[]> = {
  'keys revoke': ['prefix'], 'workspaces set-tier': ['workspace', 'tier'], 'feeds import': ['file'], 'feeds remove': ['name'],
};

async function execute(command: string, args: Record<string, unknown>): Promise<unknown> {
  const config = loadConfig();
  // A server that owns the embedded database, even one still starting, runs the command inside itself.
  const reply = config.databaseUrl ? null : await callOwner(config.dataDir, command, args, {
    timeoutMs: SERVER_START_WAIT_MS, onWait: () => console.error('waiting for the server to finish starting…'),
  });
  if (reply) {
    if (!reply.ok) throw Object.assign(new Error(reply.message), { code: reply.error });
    return reply.result;
  }
  const db = await openDatabase({
    databaseUrl: config.databaseUrl, dataDir: config.dataDir, preparedStatements: config.databasePreparedStatements,
    warn: (msg, fields) => console.error(`warning: ${msg} ${JSON.stringify(fields)}`),
  });
  try {
    if (command !== 'db migrate') await db.migrate();
    return await runCommand(command, args, {
      db, pepper: resolvePepper(config.apiKeyPepper, config.dataDir), network: () => loadNetworkData(networkOptions(config)), publicationsKept: config.publicationsKept,
      // Nobody else sees a command run here (on PostgreSQL): its audit line goes to this process's stderr, as JSON.
      audit: { write: createLogger(config.logLevel, (line) => process.stderr.write(line)).audit, via: 'cli' },
      ...(config.redisUrl ? { announce: (m: string) => publishInvalidation(config.redisUrl!, config.redisKeyPrefix, m).catch((e) => {
        console.error(`warning: could not notify running servers (${(e as Error).message}); they follow within KEY_CACHE_TTL_MS`);
      }) } : {}),
    });
  } finally {
    await db.close();
  }
}

/**
 * Feeds are parsed in the CLI process (with a progress bar on a terminal), so only the parsed
 * entries travel to whichever process writes them.
 */
async function parseFeedLocally(args: Record<string, unknown>) {
  if (typeof args.file !== 'string') throw Object.assign(new Error('feeds import needs a FILE'), { code: 'invalid_request' });
  const format = (args.format ?? 'plain') as string;
  if (format !== 'plain' && format !== 'csv') throw Object.assign(new Error('--format must be plain or csv'), { code: 'invalid_request' });
  const progress = createProgressWriter(process.stderr);
  const parsed = await readFeedFile(args.file, format, {
    ...(typeof args.column === 'string' ? { column: args.column } : {}),
    onProgress: (lines, bytes, total) => progress.update(lines, bytes, total),
  });
  progress.done();
  args.source = path.resolve(args.file);
  args.parsed = parsed;
  args.format = format;
}

export async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'dev-provider') { await (await import('./dev-provider.ts')).runDevProvider(argv.slice(1)); return -1; }
  // The one command that reads its own environment variable: the key an agent host passes to the bridge it launches.
  if (argv[0] === 'mcp') return (await import('./mcp-bridge.ts')).runMcpBridge(argv.slice(1), process.env.RISK_API_KEY);
  const { values, positionals } = parseArgs({
    args: argv, allowPositionals: true, strict: true,
    options: {
      workspace: { type: 'string' }, name: { type: 'string' }, tier: { type: 'string' }, json: { type: 'boolean' },
      format: { type: 'string' }, column: { type: 'string' }, weight: { type: 'string' }, help: { type: 'boolean', short: 'h' },
      'allow-partial': { type: 'boolean' }, 'dry-run': { type: 'boolean' },
    },
  });
  if (positionals[0] === 'start') { await import('../main.ts'); return -1; }
  const command = positionals.slice(0, 2).join(' ');
  if (values.help || !COMMAND_NAMES.includes(command)) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const args: Record<string, unknown> = { ...values };
  (POSITIONALS[command] ?? []).forEach((name, i) => { if (positionals[2 + i] !== undefined) args[name] = positionals[2 + i]; });
  if (command === 'feeds import') await parseFeedLocally(args);
  // A feed's bad lines are reported with their numbers, never dropped silently; also when they got the import refused.
  const parsed = args.parsed as FeedParseResult | undefined;
  let result = await execute(command, args).catch((e) => {
    if (parsed) printBadLines(parsed.errors, parsed.errorsOmitted);
    throw e;
  });
  if (parsed) result = { ...(result as object), bad_lines: parsed.errors, bad_lines_not_listed: parsed.errorsOmitted };
  if (values.json) console.log(JSON.stringify(result, null, 2));
  else printHuman(command, result);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => { if (code >= 0) process.exit(code); },
  (e) => {
    if (e instanceof ConfigError) console.error(e.message);
    else if (isAppError(e) || (e as { code?: string }).code) console.error(`error: ${(e as Error).message}`);
    else console.error(e);
    process.exit(1);
  },
);
