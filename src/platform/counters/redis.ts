/**
 * Redis counter store (node-redis v5).
 *
 * Key layout: every key that one script touches shares one Redis Cluster hash tag, so each script runs on one
 * slot. `prefix` (tests, shared instances) is prepended BEFORE the key; it may not contain braces, so the
 * key's own hash tag stays the first one.
 *   rq:{ws:<id>}:<surface>:<yyyymmdd>     daily quota counter (built by the caller, keys.ts quotaKey);
 *                                          PEXPIREAT the caller's expireAtMs (next UTC midnight)
 *   rq:{ws:<id>}:<surface>:<yyyymmdd>:k:<apiKeyPrefix>  one key's count of the day (keys.ts keyQuotaKey), set
 *                                          by meterCall with the quota, same expiry; limits nothing
 *   rl:{ws:<id>}:k:<apiKeyPrefix>:<start>  burst counter of one fixed window (caller's key + window start);
 *                                          PEXPIRE (time left in the window + one window) at creation; it
 *                                          shares the quota's tag, so meterCall checks both in one script
 *   rl:{<who>}:…                          cooldowns (claimCooldown): SET NX PX, the caller's key as it is
 *   cs:{<entityKey>}:hist                  hash: window start → community hits of one entity, only windows
 *                                          that had lookups
 *   cs:{<entityKey>}:r:<windowStart>       HyperLogLog of the distinct requesters of one 10-minute window
 *                                          both PEXPIRE so they live until window start + 7 days + 1 window
 *                                          by the caller's clock (a TTL: immune to app/Redis clock skew)
 * recordLookupBatch sends one EVALSHA per entity (one slot each) and node-redis writes all of them in one
 * pipeline, on a second connection of its own: one round trip on a single node, still correct on Cluster, and
 * never in front of a metering step. readActivity is one script over
 * one entity's keys; peekMany does one MGET per hash tag.
 *
 * On a Redis Cluster (REDIS_CLUSTER_NODES, redis-cluster.ts) the same calls go to each key's slot; nothing here
 * differs, since no call names keys of two hash tags.
 *
 * Outages (redis-connection.ts): no offline queue (a command issued while disconnected fails at once instead of waiting), a short
 * connect timeout, and a reconnect loop that never gives up (capped backoff), so service resumes by itself
 * when Redis returns. Every failure to reach Redis surfaces as CounterUnavailableError.
 */
import type { CounterStore } from './types.ts';
import { meterUnits } from './meter-units.ts';
import {
  assertActivityRange,
  communityExpireAtMs,
  hashTag,
  windowStart,
  COMMUNITY_RETENTION_MS,
  WINDOW_MS,
} from './keys.ts';
import { describeTarget, unavailable, type CounterConnection, type RedisTarget } from './redis-connection.ts';
import { connectCounterConnection } from './redis-connect.ts';

export interface RedisCounterStoreOptions {
  /** Prepended to every key (before its hash tag); no braces. */
  prefix?: string;
  /** Connect timeout per attempt, and how long creation waits for the first connection. Default 2000 ms. */
  connectTimeoutMs?: number;
  /** Cap of the reconnect backoff. Default 2000 ms. */
  maxReconnectDelayMs?: number;
  /** Told once per outage (the first error after being ready). Default: one line on stderr. */
  onOutage?: (err: unknown) => void;
}

/** Requesters added by one record script call (Lua's unpack is limited by the C stack, ~8,000). */
const MAX_REQUESTERS_PER_CALL = 500;

export async function createRedisCounterStore(
  target: RedisTarget | string,
  opts: RedisCounterStoreOptions = {},
): Promise<CounterStore> {
  const where: RedisTarget = typeof target === 'string' ? { url: target } : target;
  const prefix = opts.prefix ?? '';
  if (/[{}]/.test(prefix)) throw new TypeError('counter key prefix may not contain braces');
  const connectTimeout = opts.connectTimeoutMs ?? 2000;
  const maxDelay = opts.maxReconnectDelayMs ?? 2000;
  const onOutage =
    opts.onOutage ??
    ((err: unknown) => {
      console.error(
        `[counters] redis ${describeTarget(where)} unreachable, retrying in background: ${err instanceof Error ? err.message : String(err)}`,
      );
    });

  // An 'error' event without a listener would crash the process; the connection reports each outage once.
  const client = await connectCounterConnection(where, connectTimeout, maxDelay, onOutage);
  // Lookups go on a connection of their own: a flush pipelines one script per entity (thousands under load),
  // and on the shared connection every score's metering step queued behind the whole batch, in Redis (which
  // reads one client's pipeline in 16 KB slices, serving other clients in between) and in our reply parser.
  // That queue was the score's p99 (docs/decisions/0010). Its failures reach the lookup
  // buffer's onError, so it reports no outage of its own; while it is reconnecting, lookups use the main one.
  let recorder: CounterConnection;
  try {
    recorder = await connectCounterConnection(where, connectTimeout, maxDelay, () => {});
  } catch (err) {
    client.destroy();
    throw err;
  }

  const k = (key: string) => prefix + key;
  const requestersKey = (entity: string, start: number) => `${prefix}cs:{${entity}}:r:${start}`;
  const historyKey = (entity: string) => `${prefix}cs:{${entity}}:hist`;
  const toInt = (v: string | null | undefined) => (v == null ? 0 : Number(v));
  const mget = (keys: string[]) => client.mGet(keys);

  const store: CounterStore = {
    async consumeIfBelow(key, limit, expireAtMs) {
      try {
        const [counted, used] = await client.consume(k(key), limit, expireAtMs);
        return { counted: counted === 1, used: Number(used) };
      } catch (err) {
        throw unavailable(err);
      }
    },

    async peek(key) {
      try {
        return toInt(await client.get(k(key)));
      } catch (err) {
        throw unavailable(err);
      }
    },

    async peekMany(keys) {
      if (keys.length === 0) return [];
      // MGET only across one slot (Cluster); the groups are issued together, so one round trip on a single node.
      const groups = new Map<string, number[]>();
      keys.forEach((key, i) => {
        const tag = hashTag(key);
        const g = groups.get(tag);
        if (g) g.push(i);
        else groups.set(tag, [i]);
      });
      const out = new Array<number>(keys.length).fill(0);
      try {
        await Promise.all(
          [...groups.values()].map(async (idx) => {
            const values = await mget(idx.map((i) => k(keys[i]!)));
            idx.forEach((i, j) => {
              out[i] = toInt(values[j]);
            });
          }),
        );
      } catch (err) {
        throw unavailable(err);
      }
      return out;
    },

    async hitWindow(key, limit, windowMs, nowMs) {
      const start = Math.floor(nowMs / windowMs) * windowMs;
      const resetAtMs = start + windowMs;
      try {
        const [allowed, count] = await client.hit(`${k(key)}:${start}`, limit, resetAtMs - nowMs + windowMs);
        return { allowed: allowed === 1, count: Number(count), resetAtMs };
      } catch (err) {
        throw unavailable(err);
      }
    },

    async claimCooldown(key, ttlMs) {
      try {
        const [claimed, left] = await client.cooldown(k(key), ttlMs);
        return { claimed: claimed === 1, retryAfterMs: Math.max(1, Number(left)) };
      } catch (err) {
        throw unavailable(err);
      }
    },

    async meterCall(call) {
      const start = Math.floor(call.nowMs / call.burstWindowMs) * call.burstWindowMs;
      const burstResetAtMs = start + call.burstWindowMs;
      const units = meterUnits(call); // a caller's bug, not an outage: thrown as it is
      try {
        const [outcome, used] = await client.meter(
          `${k(call.burstKey)}:${start}`,
          k(call.quotaKey),
          k(call.keyCountKey),
          call.burstLimit,
          burstResetAtMs - call.nowMs + call.burstWindowMs,
          call.dailyLimit,
          call.quotaExpireAtMs,
          units,
        );
        return {
          outcome: outcome === 1 ? 'counted' : outcome === 2 ? 'burst_limited' : 'quota_exhausted',
          used: Number(used),
          burstResetAtMs,
        };
      } catch (err) {
        throw unavailable(err);
      }
    },

    async recordLookups(entityKeys, requester, nowMs) {
      const windowStartMs = windowStart(nowMs);
      await store.recordLookupBatch(
        entityKeys.map((entity) => ({ entity, windowStartMs, hits: 1, requesters: [requester] })),
        nowMs,
      );
    },

    async recordLookupBatch(tallies, nowMs) {
      if (tallies.length === 0) return;
      const maxFields = COMMUNITY_RETENTION_MS / WINDOW_MS;
      try {
        // One EVALSHA per entity (one slot each); issued in one tick, node-redis writes them as one pipeline.
        // Until the recorder's connection is back after an outage (its reconnect backoff runs apart from the
        // main one's), lookups share the main connection rather than being lost.
        const via = recorder.isReady ? recorder : client;
        await Promise.all(
          tallies.flatMap((t) => {
            const ttl = communityExpireAtMs(t.windowStartMs) - nowMs;
            const oldestKept = t.windowStartMs - (COMMUNITY_RETENTION_MS - WINDOW_MS);
            const calls = [];
            for (let i = 0; i < t.requesters.length; i += MAX_REQUESTERS_PER_CALL) {
              const hits = i === 0 ? t.hits : 0;
              calls.push(
                via.record(
                  requestersKey(t.entity, t.windowStartMs),
                  historyKey(t.entity),
                  t.requesters.slice(i, i + MAX_REQUESTERS_PER_CALL),
                  hits,
                  ttl,
                  t.windowStartMs,
                  oldestKept,
                  maxFields,
                ),
              );
            }
            return calls;
          }),
        );
      } catch (err) {
        throw unavailable(err);
      }
    },

    async readActivity(entityKey, range) {
      assertActivityRange(range);
      const recentStarts = range.recentStartsMs;
      let reply: number[];
      try {
        reply = await client.readActivity(
          historyKey(entityKey),
          recentStarts.map((s) => requestersKey(entityKey, s)),
          range.sinceMs,
          range.untilMs,
          recentStarts,
        );
      } catch (err) {
        throw unavailable(err);
      }
      const n = recentStarts.length;
      const active: Array<{ startMs: number; hits: number }> = [];
      for (let i = 1 + n; i + 1 < reply.length; i += 2) active.push({ startMs: reply[i]!, hits: reply[i + 1]! });
      active.sort((a, b) => a.startMs - b.startMs);
      const hitsAt = new Map(active.map((w) => [w.startMs, w.hits]));
      return {
        active,
        recent: recentStarts.map((startMs, i) => ({
          startMs,
          hits: hitsAt.get(startMs) ?? 0,
          requesters: reply[1 + i] ?? 0,
        })),
        distinctRequesters: reply[0] ?? 0,
      };
    },

    async seedCounter(key, value, expireAtMs) {
      try {
        return (await client.seed(k(key), value, expireAtMs)) === 1;
      } catch (err) {
        throw unavailable(err);
      }
    },

    async ping() {
      try {
        await client.ping();
      } catch (err) {
        throw unavailable(err);
      }
    },

    async close() {
      await Promise.all([client.close(), recorder.close()]);
    },
  };
  return store;
}
