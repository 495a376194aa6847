import { isAppError } from '../../errors.ts';

/**
 * The audit line of an operator command that changes who may call or what is scored: keys created and revoked,
 * tier changes, feed imports and removals. What it names is picked field by field from the arguments and the
 * result (a created key's secret is in that result: it is never copied). Other commands (lists, publish,
 * migrations) write none. Refused commands are audited too, with the error code.
 */
type Args = Record<string, unknown>;
type Fields = Record<string, unknown>;
const pick = (from: unknown, names: string[]): Fields => {
  const o = (from ?? {}) as Fields;
  return Object.fromEntries(names.filter((n) => o[n] !== undefined).map((n) => [n, o[n]]));
};

const AUDITED: Record<string, { msg: string; fields: (args: Args, result: unknown) => Fields }> = {
  'keys create': {
    msg: 'api key created',
    fields: (a, r) => ({ ...pick(a, ['workspace', 'name', 'tier']), ...pick(r, ['prefix']) }),
  },
  'keys revoke': { msg: 'api key revoked', fields: (a) => pick(a, ['prefix']) },
  'workspaces set-tier': { msg: 'workspace tier changed', fields: (a) => pick(a, ['workspace', 'tier']) },
  'feeds import': {
    msg: 'feed imported',
    fields: (a, r) => ({
      ...pick(a, ['name', 'format', 'source', 'weight']),
      ...pick(r, ['entries', 'errors', 'lines', 'replaced', 'previousEntries', 'dryRun']),
    }),
  },
  'feeds remove': { msg: 'feed removed', fields: (a, r) => ({ ...pick(a, ['name']), ...pick(r, ['entries']) }) },
};

export type Audit = (msg: string, fields: Fields) => void;

/** Runs `run` and writes the command's audit line (when it has one) with its outcome. */
export async function audited<T>(
  command: string,
  args: Args,
  audit: Audit | undefined,
  via: string,
  run: () => Promise<T>,
): Promise<T> {
  const entry = audit && AUDITED[command];
  if (!entry) return run();
  try {
    const result = await run();
    audit(entry.msg, { via, command, outcome: 'ok', ...entry.fields(args, result) });
    return result;
  } catch (e) {
    audit(`${command} refused`, {
      via,
      command,
      outcome: isAppError(e) ? e.code : 'failed',
      ...entry.fields(args, undefined),
    });
    throw e;
  }
}
