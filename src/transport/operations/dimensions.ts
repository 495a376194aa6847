import { ipQuerySchema } from '../../domain/memory/schemas.ts';
import { DIMENSION_CODES } from '../../domain/network/types.ts';
import { readDimensions, type IpDimensions } from '../../domain/lookups/dimensions.ts';
import { viewerOf } from '../http/request-context.ts';
import { dimensionCode, enumOf, freeQuota, object, publication, str, summary } from './schemas.ts';
import { examplePublication, FREE, ipRequestExample, summary as summaryExample } from './examples.ts';
import { defineOperation } from './operation.ts';
import { from, same } from './wire.ts';

/**
 * The answer's key order is the one it has always had on the wire: `ip` lists `special` before `subnet_source`
 * (the document used to list them the other way round; the answer was never changed to follow it).
 */
const dimensionsResponse = object({
  ok: { const: true },
  endpoint: { const: 'dimensions' },
  query: same(object({ ip: from('hierarchy.ip', str) })),
  quota: same(freeQuota),
  ip: from(
    'hierarchy',
    object({
      address: from('ip', { type: 'string', description: 'Canonical address.' }),
      version: enumOf([4, 6]),
      special: object(
        { cidr: str, name: str, reason: str },
        { nullable: true, description: 'Set for special-purpose addresses (private, loopback, documentation, ...).' },
      ),
      subnet_source: enumOf(
        ['announced', 'fallback', 'none'],
        'announced (routing data), fallback (/24 or /48) or none (special-purpose address).',
      ),
    }),
  ),
  publication: from('snapshot', publication),
  dimensions: {
    type: 'array',
    minItems: DIMENSION_CODES.length,
    maxItems: DIMENSION_CODES.length,
    items: object({
      code: dimensionCode,
      matched: {
        type: 'boolean',
        description:
          "As score's dimension says: the entity's evidence moves its score (at least 1), holds good ratings, or (ip) your workspace has an own verdict. A summary whose evidence rounds to 0 stays, unmatched, with the reason.",
      },
      entity: object(
        { key: str, name: str, size: { type: 'number', minimum: 0, description: 'Addresses in the entity.' } },
        { nullable: true },
      ),
      reason: { type: ['string', 'null'] },
      published: summary('The published (global) summary; null when none.'),
      workspace: summary("The calling workspace's own layer; null when none."),
    }),
  },
});

const located = (
  code: string,
  key: string,
  name: string,
  size: number,
  published: [number, string],
  workspace: [number, string],
) => ({
  code,
  matched: true,
  entity: { key, name, size },
  reason: null,
  published: summaryExample(published[0], published[1], 0),
  workspace: summaryExample(workspace[0], workspace[1], 1),
});

const dimensionsExample = {
  ok: true,
  endpoint: 'dimensions',
  query: { ip: '9.9.9.9' },
  quota: FREE,
  ip: { address: '9.9.9.9', version: 4, special: null, subnet_source: 'announced' },
  publication: examplePublication,
  dimensions: [
    located('ip', '9.9.9.9', '9.9.9.9', 1, [20, 'low'], [33, 'medium']),
    located('subnet', '9.9.9.0/24', '9.9.9.0/24', 256, [1, 'minimal'], [2, 'minimal']),
    located('isp', 'quad9', 'Quad9', 2304, [0, 'minimal'], [1, 'minimal']),
    located('asn', 'AS19281', 'AS19281', 1792, [1, 'minimal'], [1, 'minimal']),
    located('org', 'quad9', 'Quad9', 2304, [0, 'minimal'], [1, 'minimal']),
    ...['city', 'region', 'country'].map((code) => ({
      code,
      matched: false,
      entity: null,
      reason: 'the geo data has no location for this address',
      published: null,
      workspace: null,
    })),
  ],
};

/** POST /risk_api/dimensions/, the GraphQL field `ip` and the MCP tool get_dimensions: the raw dimensional read (free). */
export const dimensions = defineOperation({
  name: 'dimensions',
  path: '/risk_api/dimensions',
  input: ipQuerySchema,
  resolve: async ({ ip }, ctx): Promise<IpDimensions> =>
    readDimensions(ip, viewerOf(ctx), ctx.services, ctx.services.publications.current()),
  output: dimensionsResponse,
  metering: 'free',
  doc: {
    tag: 'Scoring',
    operationId: 'dimensions',
    summary: 'Raw dimensional read of an IP (unmetered)',
    description:
      "The IP's report hierarchy and, per dimension, the entity with its published summary and the workspace's own layer, " +
      'without the score wrapper. Never counted, but needs a tier that includes score (its per-dimension scores rebuild the score).',
    request: { schema: 'IpRequest', example: ipRequestExample },
    response: {
      schema: 'DimensionsResponse',
      description: 'The hierarchy and its summaries.',
      example: dimensionsExample,
    },
    errors: ['tier_not_eligible'],
  },
});
