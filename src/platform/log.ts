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

/** Field names censored wherever a log line carries them (top level or one object down, e.g. `headers.cookie`). */
export const REDACTED = [
  'password', 'secret', 'token', 'apiKey', 'authorization', 'cookie', 'pepper', 'secretHash', 'csrfToken', 'clientSecret',
  'accessToken', 'sessionToken', 'text', 'body', 'smtpUrl', 'databaseUrl', 'redisUrl', 'x-api-key', 'set-cookie',
] as const;
const PATHS = REDACTED.flatMap((name) => {
  const segment = /^[A-Za-z_$][\w$]*$/.test(name) ? name : `["${name}"]`;
  return [segment, segment.startsWith('[') ? `*${segment}` : `*.${segment}`];
});

export function createLogger(level: LogLevel, write?: (line: string) => void): Logger {
  const root: Pino = pino({
    level,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: PATHS, censor: '[redacted]' },
  }, write ? { write } : pino.destination({ dest: 1, sync: true })); // sync: the last lines before an exit are never lost
  const auditor = root.child({ audit: true }, { level: level === 'silent' ? 'silent' : 'info' });
  const emit = (target: Pino, lvl: Exclude<LogLevel, 'silent'>) => (msg: string, fields?: Fields) => {
    if (fields) target[lvl](fields, msg); else target[lvl](msg);
  };
  return {
    debug: emit(root, 'debug'), info: emit(root, 'info'), warn: emit(root, 'warn'), error: emit(root, 'error'),
    audit: emit(auditor, 'info'),
    enabled: (lvl) => lvl !== 'silent' && root.isLevelEnabled(lvl),
  };
}
