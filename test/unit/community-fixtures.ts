/**
 * Shared by the community-*.test.ts files: the two counter stores (real Redis with a random key prefix, and
 * the embedded in-memory store), a hierarchy builder and a fixed UTC clock.
 */
import { randomUUID } from 'node:crypto';
import type { CounterStore } from '../../src/platform/counters/types.ts';
export { STORES, closeStores, stopClusters } from '../helpers/counter-stores.ts';
import { DIMENSION_CODES, type DimensionCode, type Hierarchy } from '../../src/domain/network/types.ts';

/** 2026-06-17 12:00 UTC: a window boundary, so `T0 + k * WINDOW_MS` is the start of a window. */
export const T0 = Date.UTC(2026, 5, 17, 12, 0);

/** A public-looking IPv4 hierarchy with a subnet and an AS; `entity` keys as the network index builds them. */
export function hierarchy(ip: string, subnet: string | null, asn: string | null): Hierarchy {
  const keys: Partial<Record<DimensionCode, string | null>> = { ip, subnet, asn };
  return {
    ip,
    version: 4,
    special: null,
    dimensions: DIMENSION_CODES.map((code) => {
      const key = keys[code];
      return key
        ? { code, entity: { code, key, name: key, size: 1 }, reason: null }
        : { code, entity: null, reason: 'not in the test data' };
    }),
    subnetSource: subnet ? 'announced' : 'none',
  };
}

/** A fresh entity key per test, so tests never see each other's counters. */
export const freshIp = () => `ip:${randomUUID()}`;

/** `count` lookups of `entity` at nowMs, requesters from `requesters` in turn, issued together. */
export async function lookups(
  store: CounterStore,
  entity: string,
  count: number,
  nowMs: number,
  requesters: string[] = ['r1'],
): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, (_, i) => store.recordLookups([entity], requesters[i % requesters.length]!, nowMs)),
  );
}
