import type { Watch } from '../../generated/prisma/client.ts';
import { createWatch, deleteWatch, updateWatch } from '../../domain/watches/changes.ts';
import { listWatches } from '../../domain/watches/reads.ts';
import {
  WATCH_LIMITS,
  createWatchSchema,
  deleteWatchSchema,
  listWatchesSchema,
  updateWatchSchema,
} from '../../domain/watches/schemas.ts';
import { WATCH_TARGET_KINDS } from '../../domain/watches/target.ts';
import { keyActor, viewerOf } from '../http/request-context.ts';
import { count, dateTime, enumOf, freeQuota, object, personOf, RISK_LEVEL_WORDS, str } from './schemas.ts';
import { FREE } from './examples.ts';
import { defineOperation } from './operation.ts';
import { from, same } from './wire.ts';

/**
 * The POST /risk_api/watches/ family: create, list, update and delete, each the resolver of its GraphQL field
 * (createWatch, watches, updateWatch, deleteWatch). Free, bounded (docs/api.md, watches; docs/watches.md for the
 * events).
 */
const watch = object({
  id: count,
  target_kind: enumOf(WATCH_TARGET_KINDS, 'What the watch names.'),
  target: { type: 'string', description: 'Canonical: an IP, a CIDR block, AS<n>, or <subject kind>:<key>.' },
  score_threshold: {
    type: ['integer', 'null'],
    minimum: 1,
    maximum: 100,
    description: 'watch.score_crossed fires when a publication moves the score across it; null: level changes only.',
  },
  note: str,
  author: personOf('author'),
  created_at: dateTime,
  last_score: {
    type: ['integer', 'null'],
    minimum: 0,
    maximum: 100,
    description: 'The score the last publication compared gave; null before the first and for subject watches.',
  },
  last_level: { type: ['string', 'null'], enum: [...RISK_LEVEL_WORDS, null], description: 'Its level.' },
  last_publication_version: {
    type: ['integer', 'null'],
    minimum: 1,
    description: 'The publication last_score is from.',
  },
  last_spiking: { type: 'boolean', description: 'Whether the community signal was spiking at the last check.' },
});

/** The answer of create, update and delete: one document schema, each operation's own `endpoint` word. */
const watchResponse = (endpoint: string) =>
  object({
    ok: { const: true },
    endpoint: from(() => endpoint, enumOf(['watches_create', 'watches_update', 'watches_delete'])),
    quota: same(freeQuota),
    watch: same(watch),
  });

const watchListResponse = object({
  ok: { const: true },
  endpoint: { const: 'watches_list' },
  quota: same(freeQuota),
  watches: from('items', {
    type: 'array',
    maxItems: WATCH_LIMITS.listPage,
    items: watch,
    description: 'Oldest first.',
  }),
  next_cursor: { type: ['string', 'null'], description: 'Send as cursor for the next page; null on the last page.' },
});

const watchExample = {
  id: 7,
  target_kind: 'cidr',
  target: '203.0.113.0/24',
  score_threshold: 60,
  note: 'checkout fraud ring, ticket 4711',
  author: { kind: 'api_key', id: 3, label: 'checkout (rk_adDTKSHH)' },
  created_at: '2026-11-26T07:00:00.000Z',
  last_score: 42,
  last_level: 'medium',
  last_publication_version: 118,
  last_spiking: false,
};

const FAMILY = { tag: 'Watches', response: 'WatchResponse' } as const;
const notFound = { not_found: 'no watch with this id in the workspace' };

export const createWatchOperation = defineOperation({
  name: 'watches_create',
  path: '/risk_api/watches',
  input: createWatchSchema,
  resolve: (input, ctx): Promise<Watch> =>
    createWatch(ctx.services.prisma, viewerOf(ctx).workspaceId, input, keyActor(ctx)),
  output: watchResponse('watches_create'),
  metering: 'free',
  status: 201,
  doc: {
    tag: FAMILY.tag,
    operationId: 'createWatch',
    summary: 'Watch an IP, block, AS or report subject (free)',
    description:
      'A watch of the workspace on an IP, a CIDR block or an AS (target), or on any other report subject (subject: kind and key). ' +
      "Its events go to the workspace's webhook endpoints that want them: watch.score_crossed and watch.level_changed when a new publication " +
      "moves the target's score across score_threshold or changes its level, watch.spike_started when its community signal starts spiking, " +
      "watch.reported when another workspace's community-visible report names it (docs/watches.md). The first publication seen only records state. " +
      `At most ${WATCH_LIMITS.perWorkspace} watches per workspace, one per target. The author is the calling key. Never counted.`,
    request: {
      schema: 'CreateWatchRequest',
      example: { target: '203.0.113.0/24', score_threshold: 60, note: 'checkout fraud ring, ticket 4711' },
    },
    response: {
      schema: FAMILY.response,
      description: 'Created.',
      example: {
        ok: true,
        endpoint: 'watches_create',
        quota: FREE,
        watch: { ...watchExample, last_score: null, last_level: null, last_publication_version: null },
      },
    },
    errors: ['watch_exists', 'watch_limit_reached'],
    errorsWhen: {
      watch_exists: 'the workspace already watches this target',
      watch_limit_reached: `the workspace has ${WATCH_LIMITS.perWorkspace} watches`,
    },
  },
});

export const listWatchesOperation = defineOperation({
  name: 'watches_list',
  path: '/risk_api/watches/list',
  input: listWatchesSchema,
  resolve: (input, ctx) => listWatches(ctx.prisma, viewerOf(ctx).workspaceId, input),
  output: watchListResponse,
  metering: 'free',
  doc: {
    tag: FAMILY.tag,
    operationId: 'listWatches',
    summary: 'List watches (free)',
    description: `The workspace's watches, oldest first, with the state detection last recorded; limit 1-${WATCH_LIMITS.listPage} (default ${WATCH_LIMITS.defaultListPage}), next_cursor as cursor for the next page. Never counted.`,
    request: { schema: 'ListWatchesRequest', example: { limit: 50 } },
    response: {
      schema: 'WatchListResponse',
      description: 'One page of watches.',
      example: { ok: true, endpoint: 'watches_list', quota: FREE, watches: [watchExample], next_cursor: null },
    },
    errors: [],
  },
});

export const updateWatchOperation = defineOperation({
  name: 'watches_update',
  path: '/risk_api/watches/update',
  input: updateWatchSchema,
  resolve: (input, ctx) => updateWatch(ctx.services.prisma, viewerOf(ctx).workspaceId, input),
  output: watchResponse('watches_update'),
  metering: 'free',
  doc: {
    tag: FAMILY.tag,
    operationId: 'updateWatch',
    summary: "Change a watch's threshold or note (free)",
    description:
      'score_threshold (1-100; null removes it) or note; at least one. The target never changes: that is another watch. Never counted.',
    request: { schema: 'UpdateWatchRequest', example: { id: 7, score_threshold: 50 } },
    response: {
      schema: FAMILY.response,
      description: 'Changed.',
      example: { ok: true, endpoint: 'watches_update', quota: FREE, watch: { ...watchExample, score_threshold: 50 } },
    },
    errors: ['not_found'],
    errorsWhen: notFound,
  },
});

export const deleteWatchOperation = defineOperation({
  name: 'watches_delete',
  path: '/risk_api/watches/delete',
  input: deleteWatchSchema,
  resolve: ({ id }, ctx) => deleteWatch(ctx.services.prisma, viewerOf(ctx).workspaceId, id),
  output: watchResponse('watches_delete'),
  metering: 'free',
  doc: {
    tag: FAMILY.tag,
    operationId: 'deleteWatch',
    summary: 'Delete a watch (free)',
    description:
      'Deletes the watch and answers it as it was; events already written are still delivered. A watch of another workspace is not found. Never counted.',
    request: { schema: 'DeleteWatchRequest', example: { id: 7 } },
    response: {
      schema: FAMILY.response,
      description: 'Deleted.',
      example: { ok: true, endpoint: 'watches_delete', quota: FREE, watch: watchExample },
    },
    errors: ['not_found'],
    errorsWhen: notFound,
  },
});
