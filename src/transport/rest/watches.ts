import { defineOperation } from './operation.ts';

/**
 * The POST /risk_api/watches/ family: create, list, update and delete run the GraphQL fields as fixed operations
 * (one resolver per rule, one validation), as the overrides family does.
 */
const WATCH_FIELDS = 'id targetKind target scoreThreshold note author { kind id label } createdAt lastScore lastLevel lastPublicationVersion lastSpiking';
const FREE = { counted: false, reason: 'free_endpoint' } as const;

export const createWatchOperation = defineOperation('watches_create', /* GraphQL */ `
  mutation CreateWatch($input: CreateWatchInput!) { createWatch(input: $input) { ${WATCH_FIELDS} } }`);
export const updateWatchOperation = defineOperation('watches_update', /* GraphQL */ `
  mutation UpdateWatch($input: UpdateWatchInput!) { updateWatch(input: $input) { ${WATCH_FIELDS} } }`);
export const deleteWatchOperation = defineOperation('watches_delete', /* GraphQL */ `
  mutation DeleteWatch($id: Int!) { deleteWatch(id: $id) { ${WATCH_FIELDS} } }`);
export const listWatchesOperation = defineOperation('watches_list', /* GraphQL */ `
  query ListWatches($first: Int, $after: String) { watches(first: $first, after: $after) { nodes { ${WATCH_FIELDS} } nextCursor } }`);

type WatchData = {
  id: number; targetKind: string; target: string; scoreThreshold: number | null; note: string; author: { kind: string; id: number; label: string };
  createdAt: string; lastScore: number | null; lastLevel: string | null; lastPublicationVersion: number | null; lastSpiking: boolean;
};

/** A watch in wire names, as every watch answer words it. */
function wireWatch(w: WatchData) {
  return {
    id: w.id, target_kind: w.targetKind, target: w.target, score_threshold: w.scoreThreshold, note: w.note, author: w.author, created_at: w.createdAt,
    last_score: w.lastScore, last_level: w.lastLevel, last_publication_version: w.lastPublicationVersion, last_spiking: w.lastSpiking,
  };
}

const answer = (endpoint: string, watch: WatchData) => ({ body: { ok: true, endpoint, quota: FREE, watch: wireWatch(watch) }, replayed: false });

export const shapeCreateWatch = (data: { createWatch: WatchData }) => answer('watches_create', data.createWatch);
export const shapeUpdateWatch = (data: { updateWatch: WatchData }) => answer('watches_update', data.updateWatch);
export const shapeDeleteWatch = (data: { deleteWatch: WatchData }) => answer('watches_delete', data.deleteWatch);
export function shapeListWatches(data: { watches: { nodes: WatchData[]; nextCursor: string | null } }) {
  return { body: { ok: true, endpoint: 'watches_list', quota: FREE, watches: data.watches.nodes.map(wireWatch), next_cursor: data.watches.nextCursor }, replayed: false };
}
