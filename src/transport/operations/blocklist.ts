import {
  BLOCKLIST_FORMAT_MEANINGS,
  BLOCKLIST_LIMITS,
  blocklistInputSchema,
  blocklistQuery,
  type BlocklistInput,
} from '../../domain/lookups/blocklist-input.ts';
import { BLOCKLIST_CONTENT_TYPES, renderBlocklist } from '../../domain/lookups/blocklist-render.ts';
import { blocklistRequest, type BlocklistOutcome } from '../../domain/lookups/blocklist-request.ts';
import { rateLimitHeaders } from '../../domain/metering/meter.ts';
import { viewerOf } from '../http/request-context.ts';
import { count, enumOf, levelText, object, publication, RISK_LEVEL_WORDS, score0to100 } from './schemas.ts';
import { blocklistCsvExample, blocklistExample, blocklistTextExample } from './blocklist-examples.ts';
import { defineOperation, METERED_ERRORS, type Operation } from './operation.ts';
import { from, same } from './wire.ts';

/** The JSON form of a blocklist: format=json on REST, and (with the quota) the MCP tool's answer. */
export const blocklistDocument = object({
  ok: { const: true },
  endpoint: { const: 'blocklist' },
  threshold: same(
    object(
      {
        min_score: from('threshold', { ...score0to100, description: 'The lowest score listed.' }),
        level: from('thresholdLevel', { ...enumOf(RISK_LEVEL_WORDS), description: `Its risk level (${levelText}).` }),
      },
      { description: 'What an entry must reach to be listed.' },
    ),
  ),
  matched: { ...count, description: 'Entries that qualified, before limit.' },
  truncated: { type: 'boolean', description: 'More qualified than limit: the riskiest limit entries are listed.' },
  rules_not_listed: {
    ...count,
    description:
      'Your deny rules not in the list: those naming an AS or a country (not expanded into address ranges) and denied CIDR blocks holding an address your allow rules name.',
  },
  publication,
  entries: {
    type: 'array',
    maxItems: BLOCKLIST_LIMITS.maxEntries,
    description: 'Riskiest first (score descending, then IPs before blocks, then the entry text).',
    items: object({
      entry: { type: 'string', description: 'An IP address or a CIDR block, canonical.' },
      kind: enumOf(['ip', 'block']),
      score: {
        ...score0to100,
        description:
          'The score its own published evidence gives it (a block: every address in it), after your rule that applies to it.',
      },
      level: enumOf(RISK_LEVEL_WORDS),
      source: enumOf(
        ['evidence', 'rule'],
        'evidence: listed from the published evidence; rule: one of your rules set its score.',
      ),
    }),
  },
});

/** The answer: 304 without a body when the caller's copy is current, else the body with its ETag and quota headers. */
function answer(r: BlocklistOutcome) {
  const shared = { etag: r.etag, 'cache-control': 'private, no-cache' };
  if (!r.quota) return { status: 304, headers: shared, body: '' };
  return {
    status: 200,
    headers: {
      ...shared,
      ...rateLimitHeaders(r.quota),
      'x-blocklist-matched': String(r.matched),
      'x-blocklist-truncated': String(r.truncated),
    },
    body: r.body,
  };
}

/** GET /risk_api/blocklist/ and the MCP tool get_blocklist: what a firewall imports, metered once per list answered. */
export const blocklist: Operation<BlocklistInput, BlocklistOutcome> = defineOperation({
  name: 'blocklist',
  path: '/risk_api/blocklist',
  input: blocklistInputSchema,
  resolve: (input, ctx) =>
    blocklistRequest(
      {
        ...input,
        viewer: viewerOf(ctx),
        surface: ctx.surface,
        via: ctx.via,
        ifNoneMatch: ctx.ifNoneMatch,
        render: (list): string =>
          input.format === 'json'
            ? blocklist.serialize(list as BlocklistOutcome)
            : renderBlocklist(list, input.format, input.setName),
      },
      ctx.services,
    ),
  output: blocklistDocument,
  metering: 'metered',
  get: {
    query: blocklistQuery,
    answer: (r) => {
      const a = answer(r);
      return { ...a, headers: { 'content-type': BLOCKLIST_CONTENT_TYPES[r.format], ...a.headers } };
    },
    content: {
      'text/plain': { example: blocklistTextExample },
      'text/csv': { example: blocklistCsvExample },
      'application/json': { example: blocklistExample },
    },
    notModified: 'The list is the one your If-None-Match names (same format, same entries): no body, nothing counted.',
  },
  doc: {
    tag: 'Blocklist',
    operationId: 'blocklist',
    summary: 'Blocklist for a firewall (metered once per list answered)',
    description:
      'The IPs and CIDR blocks whose published evidence alone puts them at or above a level (default high), under your ' +
      "workspace's rules: an allow rule removes what it covers, a deny rule on an IP or a block adds it " +
      '(docs/api.md#blocklist has the exact rule and firewall recipes). Formats: ' +
      Object.entries(BLOCKLIST_FORMAT_MEANINGS)
        .map(([f, m]) => `${f}: ${m}`)
        .join('; ') +
      '. ETag is the hash of the body: send it back in If-None-Match and an unchanged list answers 304 with no body, ' +
      'uncounted; a list answered counts one call on the daily score quota and the burst limit. Needs a tier that ' +
      'includes score.',
    request: null,
    response: { schema: 'BlocklistResponse', description: 'The list, counted once.', example: blocklistExample },
    errors: METERED_ERRORS,
  },
});
