import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { enumField, typeError, withDefault } from '../memory/schemas.ts';
import { RISK_LEVELS, type RiskLevel } from '../scoring/levels.ts';

/** Bounds of one blocklist answer (docs/api.md#blocklist). */
export const BLOCKLIST_LIMITS = {
  /** Entries in one answer: ~6 MB of CSV at most, rendered in one request. */
  maxEntries: 100_000,
  defaultEntries: 10_000,
} as const;

/** What a firewall or a program imports; docs/api.md#blocklist shows each. */
export const BLOCKLIST_FORMATS = ['text', 'csv', 'json', 'nftables', 'ipset'] as const;
export type BlocklistFormat = (typeof BLOCKLIST_FORMATS)[number];
export const BLOCKLIST_FORMAT_MEANINGS: Record<BlocklistFormat, string> = {
  text: 'one address or CIDR block per line (FireHOL, CrowdSec and fail2ban read it)',
  csv: 'RFC 4180 with a header line: entry,kind,score,level,source',
  json: 'the JSON document of the BlocklistResponse schema',
  nftables: 'an `nft -f` script defining the sets <set_name>_v4 and <set_name>_v6 in `table inet <set_name>`',
  ipset: 'an `ipset restore` file: hash:net sets <set_name>_v4 and <set_name>_v6',
};

/** Levels a blocklist can start at: minimal would list everything with any evidence, and an allow rule's minimal too. */
export const BLOCKLIST_LEVELS = ['low', 'medium', 'high', 'critical'] as const;
const DEFAULT_LEVEL: RiskLevel = 'high';
const LOWEST = RISK_LEVELS.find((b) => b.level === 'low')!.min;

/** A set name both nft and ipset accept (ipset names end at 31 characters; `_v4_new` is added). */
const SET_NAME = /^[A-Za-z][A-Za-z0-9_]{0,23}$/;

const blocklistFields = {
  level: enumField(BLOCKLIST_LEVELS)
    .optional()
    .meta({ description: `Lowest risk level listed (default ${DEFAULT_LEVEL}); give level or min_score, not both.` }),
  minScore: z
    .number({ error: typeError('an integer') })
    .int('must be an integer')
    .min(LOWEST, `must be ${LOWEST} to 100`)
    .max(100, `must be ${LOWEST} to 100`)
    .optional()
    .meta({ description: `Lowest score listed, ${LOWEST}-100 (instead of level).` }),
  limit: withDefault(
    z
      .number({ error: typeError('an integer') })
      .int('must be an integer')
      .min(1, `must be 1 to ${BLOCKLIST_LIMITS.maxEntries}`)
      .max(BLOCKLIST_LIMITS.maxEntries, `must be 1 to ${BLOCKLIST_LIMITS.maxEntries}`),
    BLOCKLIST_LIMITS.defaultEntries,
    `Most entries listed, riskiest first (default ${BLOCKLIST_LIMITS.defaultEntries}, at most ${BLOCKLIST_LIMITS.maxEntries}).`,
  ),
  format: withDefault(enumField(BLOCKLIST_FORMATS), 'text', 'text (default), csv, json, nftables or ipset.'),
  setName: withDefault(
    z
      .string({ error: typeError('a string') })
      .regex(SET_NAME, 'must be a letter then up to 23 letters, digits or underscores'),
    'risk_api',
    'Name of the nftables table and sets or of the ipset sets (default risk_api).',
  ),
};

export type BlocklistInput = {
  threshold: number;
  limit: number;
  format: BlocklistFormat;
  setName: string;
};

function resolveThreshold(
  v: { level?: (typeof BLOCKLIST_LEVELS)[number] | undefined; minScore?: number | undefined },
  ctx: z.RefinementCtx,
): number {
  if (v.level !== undefined && v.minScore !== undefined) {
    ctx.addIssue({ code: 'custom', message: 'give level or min_score, not both', path: ['minScore'], input: v });
    return z.NEVER;
  }
  return v.minScore ?? RISK_LEVELS.find((b) => b.level === (v.level ?? DEFAULT_LEVEL))!.min;
}

/**
 * The query of GET /risk_api/blocklist/ (and the MCP tool's arguments, less format and set_name): every field
 * checked before any work, so a refused request costs nothing and counts nothing.
 */
export const blocklistInputSchema = z.strictObject(blocklistFields, { error: typeError('an object') }).transform(
  (v, ctx): BlocklistInput => ({
    threshold: resolveThreshold(v, ctx),
    limit: v.limit,
    format: v.format,
    setName: v.setName,
  }),
);

/** The MCP tool's arguments: the answer is JSON there, so neither format nor set names apply. */
export const blocklistToolInputSchema = z
  .strictObject(
    { level: blocklistFields.level, minScore: blocklistFields.minScore, limit: blocklistFields.limit },
    { error: typeError('an object') },
  )
  .transform(
    (v, ctx): BlocklistInput => ({
      threshold: resolveThreshold(v, ctx),
      limit: v.limit,
      format: 'json',
      setName: 'risk_api',
    }),
  );

/**
 * The query string as the schema's input: numbers where a number is expected (a query string holds only text),
 * each name at most once; names arrive snake_case and are checked by the schema in their wire names.
 */
export function blocklistQuery(params: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of params) {
    const key = name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
    if (key in out)
      throw new AppError('invalid_request', `The query names ${name} twice.`, [
        { field: name, message: 'must be given once' },
      ]);
    out[key] = (key === 'limit' || key === 'minScore') && /^\d{1,9}$/.test(value) ? Number(value) : value;
  }
  return out;
}
