/**
 * Lua scripts of the Redis counter store. Each one does its read, write and expiry in one atomic step, so a
 * crash can never leave a counter without its expiry, and each is one EVALSHA on the wire (node-redis falls
 * back to EVAL by itself after a Redis restart empties the script cache).
 */
import { defineScript } from 'redis';
import type { CommandParser } from 'redis';

type Pair = [number, number];

/** Quota: GET, compare, INCR and PEXPIREAT in one step. Reply {counted 0|1, value after the call}. */
export const consumeScript = defineScript({
  NUMBER_OF_KEYS: 1,
  SCRIPT: `
local v = tonumber(redis.call('GET', KEYS[1]) or '0')
if v < tonumber(ARGV[1]) then
  v = redis.call('INCR', KEYS[1])
  redis.call('PEXPIREAT', KEYS[1], ARGV[2])
  return {1, v}
end
return {0, v}`,
  parseCommand(parser: CommandParser, key: string, limit: number, expireAtMs: number) {
    parser.pushKey(key);
    parser.push(String(limit), String(Math.trunc(expireAtMs)));
  },
  transformReply: (reply: unknown) => reply as Pair,
});

/** Burst window: a rejected hit leaves the count alone, so backing off is rewarded at the next window.
 *  The key names its window, so the expiry only reclaims memory; it is set when the key is created, as a TTL
 *  (PEXPIRE) so that a skew between the app's clock and Redis's cannot delete a live window. */
export const hitScript = defineScript({
  NUMBER_OF_KEYS: 1,
  SCRIPT: `
local v = tonumber(redis.call('GET', KEYS[1]) or '0')
if v >= tonumber(ARGV[1]) then
  return {0, v}
end
v = redis.call('INCR', KEYS[1])
if v == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return {1, v}`,
  parseCommand(parser: CommandParser, key: string, limit: number, ttlMs: number) {
    parser.pushKey(key);
    parser.push(String(limit), String(Math.max(1, Math.ceil(ttlMs))));
  },
  transformReply: (reply: unknown) => reply as Pair,
});

/** One lookup of one entity: hit counter + HyperLogLog of requesters, both with their expiry (a TTL counted
 *  from the caller's nowMs, so the retention holds whatever Redis's own clock says). */
/**
 * One lookup: the window's hit counter and HyperLogLog, plus the entity's hit history (a hash of
 * window start → hits holding only windows that had lookups), so reading 7 days of hits is one
 * HGETALL of a few fields instead of 1,008 keys. Fields older than the retention are pruned
 * here, at most once per window, when the hash has grown past a week of windows.
 */
export const recordScript = defineScript({
  NUMBER_OF_KEYS: 3,
  SCRIPT: `
redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PFADD', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('HINCRBY', KEYS[3], ARGV[3], 1)
redis.call('PEXPIRE', KEYS[3], ARGV[2])
if redis.call('HLEN', KEYS[3]) > tonumber(ARGV[5]) then
  for _, field in ipairs(redis.call('HKEYS', KEYS[3])) do
    if tonumber(field) < tonumber(ARGV[4]) then redis.call('HDEL', KEYS[3], field) end
  end
end
return 1`,
  parseCommand(parser: CommandParser, hitsKey: string, requestersKey: string, historyKey: string, requester: string,
    ttlMs: number, windowStartMs: number, oldestKeptMs: number, maxFields: number) {
    parser.pushKey(hitsKey);
    parser.pushKey(requestersKey);
    parser.pushKey(historyKey);
    parser.push(requester, String(Math.max(1, Math.ceil(ttlMs))), String(windowStartMs), String(oldestKeptMs), String(maxFields));
  },
  transformReply: (reply: unknown) => reply as number,
});

/** n hit keys then n HyperLogLog keys of one entity → n hits, n per-window counts, then the union count. */
export const readWindowsScript = defineScript({
  SCRIPT: `
local n = #KEYS / 2
local out = {}
for i = 1, n do
  out[i] = tonumber(redis.call('GET', KEYS[i]) or '0')
  out[n + i] = redis.call('PFCOUNT', KEYS[n + i])
end
out[2 * n + 1] = redis.call('PFCOUNT', unpack(KEYS, n + 1, 2 * n))
return out`,
  parseCommand(parser: CommandParser, hitsKeys: string[], requestersKeys: string[]) {
    parser.push(String(hitsKeys.length + requestersKeys.length));
    parser.pushKeys(hitsKeys);
    parser.pushKeys(requestersKeys);
  },
  transformReply: (reply: unknown) => reply as number[],
});
