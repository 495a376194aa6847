import type { Database } from '../db/database.ts';
import type { KeyVerifier } from '../domain/access/verifier.ts';
import { AppError } from '../errors.ts';
import { createApiKey, listApiKeys, revokeApiKey, setWorkspaceTier } from '../domain/access/keys.ts';

/**
 * Operator commands as plain functions of (arguments, services). The CLI runs them in its
 * own process, or — when a server owns the embedded database — inside that server through
 * the admin socket; either way the same code runs.
 */
export type CommandContext = { db: Database; pepper: string; verifier?: KeyVerifier };
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
  'keys create': async (a, { db, pepper }) =>
    createApiKey(db.prisma, pepper, { workspace: str(a, 'workspace')!, name: str(a, 'name')!, tier: str(a, 'tier', false) }),
  'keys list': async (a, { db }) => listApiKeys(db.prisma, { workspace: str(a, 'workspace', false) }),
  'keys revoke': async (a, { db, verifier }) => {
    const prefix = str(a, 'prefix')!;
    const revoked = await revokeApiKey(db.prisma, prefix);
    verifier?.invalidate(prefix); // immediate here; other processes follow within the cache TTL
    return revoked;
  },
  'workspaces set-tier': async (a, { db, verifier }) => {
    const result = await setWorkspaceTier(db.prisma, str(a, 'workspace')!, str(a, 'tier')!);
    verifier?.invalidate();
    return result;
  },
};

export const COMMAND_NAMES = Object.keys(commands);

export async function runCommand(name: string, args: Args, ctx: CommandContext): Promise<unknown> {
  const command = commands[name];
  if (!command) throw new AppError('not_found', `unknown command "${name}"`);
  return command(args, ctx);
}
