import { WATCH_LIMITS } from '../../domain/watches/schemas.ts';
import { WATCH_TARGET_KINDS } from '../../domain/watches/target.ts';
import { count, person, dateTime, enumOf, freeQuota, object, str, RISK_LEVEL_WORDS } from './openapi-schemas.ts';

/** JSON Schemas and examples of the watch answers (wire names). */
const watch = object({
  id: count,
  target_kind: enumOf(WATCH_TARGET_KINDS, 'What the watch names.'),
  target: { type: 'string', description: 'Canonical: an IP, a CIDR block, AS<n>, or <subject kind>:<key>.' },
  score_threshold: { type: ['integer', 'null'], minimum: 1, maximum: 100, description: 'watch.score_crossed fires when a publication moves the score across it; null: level changes only.' },
  note: str, author: person, created_at: dateTime,
  last_score: { type: ['integer', 'null'], minimum: 0, maximum: 100, description: 'The score the last publication compared gave; null before the first and for subject watches.' },
  last_level: { type: ['string', 'null'], enum: [...RISK_LEVEL_WORDS, null], description: 'Its level.' },
  last_publication_version: { type: ['integer', 'null'], minimum: 1, description: 'The publication last_score is from.' },
  last_spiking: { type: 'boolean', description: 'Whether the community signal was spiking at the last check.' },
});

export const watchResponse = object({ ok: { const: true }, endpoint: enumOf(['watches_create', 'watches_update', 'watches_delete']), quota: freeQuota, watch });

export const watchListResponse = object({
  ok: { const: true }, endpoint: { const: 'watches_list' }, quota: freeQuota,
  watches: { type: 'array', maxItems: WATCH_LIMITS.listPage, items: watch, description: 'Oldest first.' },
  next_cursor: { type: ['string', 'null'], description: 'Send as cursor for the next page; null on the last page.' },
});

const FREE = { counted: false, reason: 'free_endpoint' };
export const createWatchRequestExample = { target: '203.0.113.0/24', score_threshold: 60, note: 'checkout fraud ring, ticket 4711' };
const watchExample = {
  id: 7, target_kind: 'cidr', target: '203.0.113.0/24', score_threshold: 60, note: 'checkout fraud ring, ticket 4711',
  author: { kind: 'api_key', id: 3, label: 'checkout (rk_adDTKSHH)' }, created_at: '2026-11-26T07:00:00.000Z',
  last_score: 42, last_level: 'medium', last_publication_version: 118, last_spiking: false,
};
export const watchExampleResponse = { ok: true, endpoint: 'watches_create', quota: FREE, watch: { ...watchExample, last_score: null, last_level: null, last_publication_version: null } };
export const updateWatchRequestExample = { id: 7, score_threshold: 50 };
export const updatedWatchExample = { ok: true, endpoint: 'watches_update', quota: FREE, watch: { ...watchExample, score_threshold: 50 } };
export const deletedWatchExample = { ok: true, endpoint: 'watches_delete', quota: FREE, watch: watchExample };
export const watchListExample = { ok: true, endpoint: 'watches_list', quota: FREE, watches: [watchExample], next_cursor: null };
