import pino, { type Logger as Pino } from 'pino';

/**
 * Structured logs: one JSON object per line on stdout (pino), e.g.
 * `{"level":"info","time":"2026-06-17T10:00:00.000Z","pid":1,"hostname":"h","requestId":"…","msg":"request"}`.
 * An Error passed as `err` is written with its type, message and stack (causes included). Fields that may hold
 * a secret are censored by name wherever they appear (REDACTED; docs/security.md lists them), as a second line of
 * defence: code still never passes a secret on purpose.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
type Fields = Record<string, unknown>;
export type Logger = {
  debug(msg: string, fields?: Fields): void;
  info(msg: string, fields?: Fields): void;
  warn(msg: string, fields?: Fields): void;
  error(msg: string, fields?: Fields): void;
  /**
   * An operator or security event (keys created or revoked, tier changes, feed imports, sign-in failures,
   * webhook outcomes): an info line marked `"audit":true`, written at every LOG_LEVEL but `silent`.
   */
  audit(msg: string, fields?: Fields): void;
  enabled(level: LogLevel): boolean;
};

/** Field names censored wherever a log line carries them at its top level. */
export const REDACTED_FIELDS = [
  'password',
  'secret',
  'token',
  'apiKey',
  'pepper',
  'secretHash',
  'csrfToken',
  'clientSecret',
  'accessToken',
  'sessionToken',
  'text',
  'body',
  'smtpUrl',
  'databaseUrl',
  'redisUrl',
  'redisClusterNodes',
] as const;
/** Headers censored at the top level and inside a `headers`, `req.headers` or `res.headers` object. */
export const REDACTED_HEADERS = ['authorization', 'cookie', 'set-cookie', 'x-api-key'] as const;
// Exact paths only: a wildcard path (`*.password`) made pino walk every object of every line, and a line cost
// ~14x more (docs/decisions/0018-observability-on-the-hot-path.md).
const PATHS = [
  ...REDACTED_FIELDS,
  ...REDACTED_HEADERS.map((h) => `["${h}"]`),
  ...['headers', 'req.headers', 'res.headers'].flatMap((o) => REDACTED_HEADERS.map((h) => `${o}["${h}"]`)),
];

export function createLogger(level: LogLevel, write?: (line: string) => void): Logger {
  const root: Pino = pino(
    {
      level,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: PATHS, censor: '[redacted]' },
    },
    write ? { write } : pino.destination({ dest: 1, sync: true }),
  ); // sync: the last lines before an exit are never lost
  const auditor = root.child({ audit: true }, { level: level === 'silent' ? 'silent' : 'info' });
  const emit = (target: Pino, lvl: Exclude<LogLevel, 'silent'>) => (msg: string, fields?: Fields) => {
    if (fields) target[lvl](fields, msg);
    else target[lvl](msg);
  };
  return {
    debug: emit(root, 'debug'),
    info: emit(root, 'info'),
    warn: emit(root, 'warn'),
    error: emit(root, 'error'),
    audit: emit(auditor, 'info'),
    enabled: (lvl) => lvl !== 'silent' && root.isLevelEnabled(lvl),
  };
}
