import type { PrismaClient } from '../../generated/prisma/client.ts';
import { AppError } from '../../errors.ts';
import { generateApiKey, hashApiKey } from './key-format.ts';

/** Operator and control-plane key management. The secret leaves this module once, on creation. */

export const WORKSPACE_NAME = /^[A-Za-z0-9][A-Za-z0-9 _.@-]{0,63}$/;
export const KEY_NAME_MAX = 80;

export const KEY_STATUSES = [
  { code: 'active', meaning: 'The key authenticates calls.' },
  { code: 'revoked', meaning: 'The key was revoked: every call with it is refused.' },
] as const;

export type CreatedKey = { workspace: string; name: string; prefix: string; secret: string };
export type KeyListing = {
  workspace: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  status: (typeof KEY_STATUSES)[number]['code'];
};

export async function createApiKey(
  prisma: PrismaClient,
  pepper: string,
  input: { workspace: string; name: string; tier?: string | undefined; accountId?: number },
): Promise<CreatedKey> {
  if (!WORKSPACE_NAME.test(input.workspace)) {
    throw new AppError('invalid_request', 'workspace must be 1-64 characters: letters, digits, space, _ . @ -');
  }
  const name = input.name.trim();
  if (name.length === 0 || name.length > KEY_NAME_MAX || !name.isWellFormed() || /\p{Cc}/u.test(name)) {
    throw new AppError('invalid_request', `key name must be 1-${KEY_NAME_MAX} printable characters`);
  }
  if (input.tier) await assertTier(prisma, input.tier);
  const workspace = await prisma.workspace.upsert({
    where: { name: input.workspace },
    create: { name: input.workspace, ...(input.tier ? { tier: input.tier } : {}) },
    update: input.tier ? { tier: input.tier } : {},
  });
  const key = generateApiKey();
  await prisma.apiKey.create({
    data: {
      workspaceId: workspace.id,
      name,
      prefix: key.prefix,
      secretHash: hashApiKey(pepper, key.secret),
      ...(input.accountId !== undefined ? { accountId: input.accountId } : {}),
    },
  });
  return { workspace: workspace.name, name, prefix: key.prefix, secret: key.secret };
}

export async function listApiKeys(
  prisma: PrismaClient,
  filter: { workspace?: string | undefined; prefix?: string } = {},
): Promise<KeyListing[]> {
  const keys = await prisma.apiKey.findMany({
    where: {
      ...(filter.workspace ? { workspace: { name: filter.workspace } } : {}),
      ...(filter.prefix ? { prefix: filter.prefix } : {}),
    },
    include: { workspace: { select: { name: true } } },
    orderBy: { id: 'asc' },
  });
  return keys.map((k) => ({
    workspace: k.workspace.name,
    name: k.name,
    prefix: k.prefix,
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
    revoked_at: k.revokedAt?.toISOString() ?? null,
    status: k.revokedAt ? 'revoked' : 'active',
  }));
}

/** Revokes by prefix (idempotent: revoking twice keeps the first revocation time). */
export async function revokeApiKey(prisma: PrismaClient, prefix: string, workspaceId?: number): Promise<KeyListing> {
  const key = await prisma.apiKey.findUnique({ where: { prefix } });
  if (!key || (workspaceId !== undefined && key.workspaceId !== workspaceId)) {
    throw new AppError('not_found', `no API key with prefix ${prefix}`);
  }
  if (!key.revokedAt) await prisma.apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
  const [listing] = await listApiKeys(prisma, { prefix });
  return listing!;
}

async function assertTier(prisma: PrismaClient, tier: string) {
  if (!(await prisma.tier.findUnique({ where: { code: tier } }))) {
    const known = (await prisma.tier.findMany({ orderBy: { position: 'asc' } })).map((t) => t.code);
    throw new AppError('invalid_request', `unknown tier "${tier}"; tiers are: ${known.join(', ')}`);
  }
}

export async function setWorkspaceTier(prisma: PrismaClient, workspace: string, tier: string) {
  await assertTier(prisma, tier);
  const updated = await prisma.workspace.update({ where: { name: workspace }, data: { tier } }).catch(() => null);
  if (!updated) throw new AppError('not_found', `no workspace named ${workspace}`);
  return { workspace: updated.name, tier: updated.tier };
}
