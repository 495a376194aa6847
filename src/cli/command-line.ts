import { parseArgs } from 'node:util';
// Only the rules of option values, in modules that load nothing else: options are checked before any input is read
// (a 100,000-line feed is not read to learn that --weight 7 is refused), and --help stays fast.
import { checkFeedFormat, checkFeedWeight } from '../domain/feeds/store.ts';
import { parseEvery } from '../domain/feeds/schedule.ts';
import { checkFeedUrl } from '../domain/feeds/download.ts';

/**
 * The CLI's commands as data: the usage text (`risk-api --help`) is printed from this table and the
 * command line is parsed with it, so what the usage shows is what the parser takes. Positional
 * arguments reach the command under their lower-cased name (`keys revoke PREFIX` → args.prefix).
 */
export type OptionSpec = {
  /** What the value is, as the usage shows it (`NAME`, `plain|csv`); absent: a flag without value. */
  value?: string;
  required?: boolean;
  /** Checks a given value the way the command would, throwing its refusal; run before the command starts. */
  check?: (value: string) => unknown;
};
export type CommandSpec = {
  /** Positional arguments, all required, in order (upper case, as the usage shows them). */
  args?: string[];
  options?: Record<string, OptionSpec>;
  /** One line after the synopsis. */
  about?: string;
  /** Further lines, printed under the synopsis. */
  notes?: string[];
};

const JSON_FLAG: Record<string, OptionSpec> = { json: {} };
const WEIGHT: OptionSpec = { value: 'W', check: (v) => checkFeedWeight(v.trim() === '' ? Number.NaN : Number(v)) };
const FORMAT: OptionSpec = { value: 'plain|csv', check: checkFeedFormat };
const PORT: OptionSpec = {
  value: 'PORT',
  check: (v) => {
    if (!/^\d{1,5}$/.test(v) || Number(v) < 1 || Number(v) > 65535) throw new Error('is a port number from 1 to 65535');
  },
};

export const COMMANDS: Record<string, CommandSpec> = {
  start: { about: 'start the server (same as npm start)' },
  version: { options: JSON_FLAG, about: 'the version and the git commit running (also risk-api --version)' },
  'db migrate': { options: JSON_FLAG, about: 'apply pending database migrations' },
  'db status': { options: JSON_FLAG, about: 'the backend, applied and pending migrations' },
  'db backup': {
    args: ['FILE'],
    options: JSON_FLAG,
    about: 'embedded database: a consistent backup (tar.gz, 0600), also while the server runs',
  },
  'db restore': {
    args: ['FILE'],
    options: { force: {}, ...JSON_FLAG },
    about: 'embedded database: restore into a DATA_DIR no server uses',
    notes: [
      '--force sets a database already there aside; PostgreSQL: pg_dump / pg_restore (docs/operations.md#backups)',
    ],
  },
  'db move': {
    options: { to: { value: 'POSTGRESQL_URL', required: true }, ...JSON_FLAG },
    about: 'embedded database (server stopped) into an EMPTY PostgreSQL database, counters into Redis',
    notes: [
      'copies every table in one transaction, checks rows and a checksum per table; counters go to REDIS_URL or REDIS_CLUSTER_NODES when set',
    ],
  },
  'keys create': {
    options: {
      workspace: { value: 'NAME', required: true },
      name: { value: 'LABEL', required: true },
      tier: { value: 'TIER' },
      ...JSON_FLAG,
    },
    about: 'create an API key (and its workspace if new); the secret is printed this once',
  },
  'keys list': {
    options: { workspace: { value: 'NAME' }, ...JSON_FLAG },
    about: 'list API keys (never their secrets)',
  },
  'keys revoke': {
    args: ['PREFIX'],
    options: JSON_FLAG,
    about: 'revoke a key by its prefix (rk_…); every server refuses it within KEY_CACHE_TTL_MS',
  },
  'workspaces set-tier': {
    args: ['WORKSPACE', 'TIER'],
    options: JSON_FLAG,
    about: 'put a workspace on a tier (see tiers list)',
  },
  'tiers list': { options: JSON_FLAG, about: 'list the tiers and their limits' },
  'model report': {
    options: { since: { value: 'DAYS' }, window: { value: 'DAYS' }, workspace: { value: 'NAME' }, ...JSON_FLAG },
    about: 'how often each risk level was right on this deployment: IPs scored per level, reported bad after',
    notes: [
      'one IP sampled once at a daily instant of the last --since days (default 30d); "reported bad" within --window',
      "days after it (default 7d); with --workspace, that workspace's view and its private reports too",
    ],
  },
  'feeds import': {
    args: ['FILE'],
    options: {
      name: { value: 'NAME', required: true },
      format: FORMAT,
      column: { value: 'COL' },
      weight: WEIGHT,
      'allow-partial': {},
      'dry-run': {},
      ...JSON_FLAG,
    },
    about: 'import a threat feed: one IP, CIDR or range per line (plain), or a CSV with a header',
    notes: [
      'refused (nothing changed, exit 1) when no line is valid or more than 10% of the lines holding data are bad',
      "(--allow-partial accepts the latter); a re-import keeps the feed's weight unless --weight is given",
    ],
  },
  'feeds add': {
    args: ['NAME'],
    options: {
      url: { value: 'URL', required: true, check: checkFeedUrl },
      every: { value: 'INTERVAL', required: true, check: parseEvery },
      format: FORMAT,
      column: { value: 'COL' },
      weight: WEIGHT,
      'allow-partial': {},
      ...JSON_FLAG,
    },
    about: 'fetch a feed from an http(s) URL now and then every INTERVAL (1m..30d, e.g. 1h), on the running server',
    notes: ['conditional requests (ETag / Last-Modified); the same refusals as an import keep the previous version'],
  },
  'feeds fetch': { args: ['NAME'], options: JSON_FLAG, about: 'fetch a feed added with --url now' },
  'feeds list': { options: JSON_FLAG, about: 'list the feeds, with the last fetch of those fetched from a URL' },
  'feeds remove': {
    args: ['NAME'],
    options: JSON_FLAG,
    about: 'remove a feed; its listings leave the next publication',
  },
  publish: { options: JSON_FLAG, about: 'compute and publish a new set of risk summaries' },
  'mail held': { options: JSON_FLAG, about: 'the newest messages held without SMTP_URL, with their text' },
  'dev-provider': {
    options: { port: PORT, 'webhook-url': { value: 'URL' }, 'ca-dir': { value: 'DIR' } },
    about: 'local PayPal test double (development only)',
    notes: ['defaults: --port 8089, --webhook-url http://127.0.0.1:8080/webhooks/paypal, --ca-dir data/dev-provider'],
  },
  mcp: {
    options: { url: { value: 'URL', required: true } },
    about: "stdio bridge to the server's MCP endpoint",
    notes: [
      'bridges an agent host that launches a local command (MCP over stdio) to the MCP endpoint over HTTP; URL is the',
      "server's base URL (http://127.0.0.1:8080) or its /mcp endpoint; the API key is read from RISK_API_KEY. stdout",
      'carries only MCP messages, problems go to stderr; exit 1 when the server is unreachable or refuses the key',
    ],
  },
};

/** A mistake on the command line: the CLI prints it with the command's usage and exits 2. */
export class UsageError extends Error {
  /** `command`: the command (or group) whose usage is printed with the message. */
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

export function synopsis(name: string): string {
  const spec = COMMANDS[name]!;
  const options = Object.entries(spec.options ?? {}).map(([option, o]) => {
    const text = o.value ? `--${option} ${o.value}` : `--${option}`;
    return o.required ? text : `[${text}]`;
  });
  return ['risk-api', name, ...(spec.args ?? []), ...options].join(' ');
}

/** The usage of one command (or of a group: `keys`), or of all of them. */
export function usage(name?: string): string {
  const one = (n: string) => {
    const spec = COMMANDS[n]!;
    return [`  ${synopsis(n)}`, ...[spec.about, ...(spec.notes ?? [])].filter(Boolean).map((l) => `      ${l}`)].join(
      '\n',
    );
  };
  if (name)
    return `usage:\n${Object.keys(COMMANDS)
      .filter((n) => n === name || n.startsWith(`${name} `))
      .map(one)
      .join('\n')}`;
  return `risk-api — operator commands (work whether or not the server is running)

${Object.keys(COMMANDS).map(one).join('\n')}

Configuration comes from the same environment variables as the server (DATA_DIR, DATABASE_URL, ...).
risk-api COMMAND --help prints one command's usage; risk-api --version the version and commit.`;
}

export type CommandLine =
  | { help: true; command?: string }
  | { help: false; command: string; args: Record<string, string | boolean> };

/** Parses argv (without node and the script) against COMMANDS; throws UsageError naming what is wrong. */
export function parseCommandLine(argv: string[]): CommandLine {
  if (argv[0] === undefined) throw new UsageError('no command given');
  if (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') return { help: true };
  if (argv[0] === '--version' || argv[0] === '-v') return { help: false, command: 'version', args: {} };
  const two = `${argv[0]} ${argv[1] ?? ''}`;
  const command = COMMANDS[two] ? two : COMMANDS[argv[0]] ? argv[0] : null;
  if (!command) {
    const group = Object.keys(COMMANDS)
      .filter((n) => n.startsWith(`${argv[0]} `))
      .map((n) => n.split(' ')[1]);
    if (group.length === 0) throw new UsageError(`unknown command "${argv[0]}"`);
    if (argv[1] === undefined || argv[1].startsWith('-'))
      throw new UsageError(`"${argv[0]}" needs a command: ${group.join(', ')}`, argv[0]);
    throw new UsageError(`unknown command "${two}"; the ${argv[0]} commands are: ${group.join(', ')}`, argv[0]);
  }
  const spec = COMMANDS[command]!;
  const options = Object.fromEntries(
    Object.entries(spec.options ?? {}).map(([n, o]) => [
      n,
      { type: o.value ? ('string' as const) : ('boolean' as const) },
    ]),
  );
  let parsed;
  try {
    parsed = parseArgs({
      args: argv.slice(command.split(' ').length),
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: true,
    });
  } catch (e) {
    throw new UsageError(parseArgsProblem(e as Error & { code?: string }, spec), command);
  }
  if (parsed.values.help) return { help: true, command };
  const names = spec.args ?? [];
  if (parsed.positionals.length > names.length)
    throw new UsageError(`unexpected argument "${parsed.positionals[names.length]}"`, command);
  const missing = [
    ...names.slice(parsed.positionals.length),
    ...Object.entries(spec.options ?? {})
      .filter(([n, o]) => o.required && (parsed.values as Record<string, unknown>)[n] === undefined)
      .map(([n, o]) => `--${n} ${o.value}`),
  ];
  if (missing.length) throw new UsageError(`missing ${missing.join(', ')}`, command);
  for (const [n, o] of Object.entries(spec.options ?? {})) {
    const value = (parsed.values as Record<string, unknown>)[n];
    if (o.check && typeof value === 'string') {
      try {
        o.check(value);
      } catch (e) {
        throw new UsageError(`--${n} ${JSON.stringify(value.slice(0, 100))}: ${(e as Error).message}`, command);
      }
    }
  }
  const args: Record<string, string | boolean> = {};
  for (const [n, v] of Object.entries(parsed.values))
    if (v !== undefined && n !== 'help') args[n] = v as string | boolean;
  names.forEach((n, i) => {
    args[n.toLowerCase()] = parsed.positionals[i]!;
  });
  return { help: false, command, args };
}

/** node:util's parseArgs messages, said the way this CLI says them. */
function parseArgsProblem(e: Error & { code?: string }, spec: CommandSpec): string {
  const option = /'(-[^' ]+)/.exec(e.message)?.[1] ?? '';
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${option}`;
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const value = spec.options?.[option.replace(/^-+/, '')]?.value;
    return value ? `${option} needs a value (${value})` : `${option} takes no value`;
  }
  return e.message;
}
