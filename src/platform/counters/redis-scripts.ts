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

/** Cooldown: SET NX PX, or the holder's remaining PTTL, in one step. Reply {claimed 0|1, ms left}. The TTL is
 *  Redis's own, so no clock skew between app processes can shorten or stretch a cooldown. */
export const cooldownScript = defineScript({
  NUMBER_OF_KEYS: 1,
  SCRIPT: `
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then
  return {1, tonumber(ARGV[1])}
end
return {0, redis.call('PTTL', KEYS[1])}`,
  parseCommand(parser: CommandParser, key: string, ttlMs: number) {
    parser.pushKey(key);
    parser.push(String(Math.max(1, Math.ceil(ttlMs))));
  },
  transformReply: (reply: unknown) => reply as Pair,
});

/**
 * A metered call of ARGV[5] units (a score call is 1, a batch is its distinct valid IPs) in one step and one
 * round trip: the burst window (KEYS[1]) must hold the units, then the daily quota (KEYS[2]) must; only when both
 * do are both advanced by the units, and the key's own count of the day (KEYS[3], same expiry as the quota) with
 * them. A refusal, by either limit, leaves every count alone. All keys carry the workspace's hash tag.
 * Reply {outcome 1 counted | 2 burst limited | 3 quota exhausted, quota value after the call}.
 */
export const meterScript = defineScript({
  NUMBER_OF_KEYS: 3,
  SCRIPT: `
local n = tonumber(ARGV[5])
local used = tonumber(redis.call('GET', KEYS[2]) or '0')
local burst = tonumber(redis.call('GET', KEYS[1]) or '0')
if burst + n > tonumber(ARGV[1]) then
  return {2, used}
end
if used + n > tonumber(ARGV[3]) then
  return {3, used}
end
if redis.call('INCRBY', KEYS[1], n) == n then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
used = redis.call('INCRBY', KEYS[2], n)
redis.call('PEXPIREAT', KEYS[2], ARGV[4])
redis.call('INCRBY', KEYS[3], n)
redis.call('PEXPIREAT', KEYS[3], ARGV[4])
return {1, used}`,
  parseCommand(
    parser: CommandParser,
    burstWindowKey: string,
    quotaKey: string,
    keyCountKey: string,
    burstLimit: number,
    burstTtlMs: number,
    dailyLimit: number,
    quotaExpireAtMs: number,
    units: number,
  ) {
    parser.pushKey(burstWindowKey);
    parser.pushKey(quotaKey);
    parser.pushKey(keyCountKey);
    parser.push(
      String(burstLimit),
      String(Math.max(1, Math.ceil(burstTtlMs))),
      String(dailyLimit),
      String(Math.trunc(quotaExpireAtMs)),
      String(units),
    );
  },
  transformReply: (reply: unknown) => reply as Pair,
});

/**
 * One lookup of one entity: the HyperLogLog of the window's requesters, and the entity's hit history (a hash
 * of window start → hits holding only windows that had lookups, so reading 7 days of hits is one HGETALL of a
 * few fields instead of 1,008 keys), each with its expiry as a TTL counted from the caller's nowMs, so the
 * retention holds whatever Redis's own clock says. Fields older than the retention are pruned here when the
 * hash has grown past a week of windows.
 */
export const recordScript = defineScript({
  NUMBER_OF_KEYS: 2,
  SCRIPT: `
redis.call('PFADD', KEYS[1], unpack(ARGV, 6))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('HINCRBY', KEYS[2], ARGV[2], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
if redis.call('HLEN', KEYS[2]) > tonumber(ARGV[4]) then
  for _, field in ipairs(redis.call('HKEYS', KEYS[2])) do
    if tonumber(field) < tonumber(ARGV[3]) then redis.call('HDEL', KEYS[2], field) end
  end
end
return 1`,
  /** `hits` lookups of one entity in one window by `requesters` (at least one; a few hundred at most per call,
   *  since Lua's unpack has a stack limit: the store splits larger sets). */
  parseCommand(
    parser: CommandParser,
    requestersKey: string,
    historyKey: string,
    requesters: readonly string[],
    hits: number,
    ttlMs: number,
    windowStartMs: number,
    oldestKeptMs: number,
    maxFields: number,
  ) {
    parser.pushKey(requestersKey);
    parser.pushKey(historyKey);
    parser.push(
      String(Math.max(1, Math.ceil(ttlMs))),
      String(windowStartMs),
      String(oldestKeptMs),
      String(maxFields),
      String(hits),
      ...requesters,
    );
  },
  transformReply: (reply: unknown) => reply as number,
});

/**
 * One entity's activity in one atomic step. KEYS[1] = hit history, KEYS[2..] = the requester HyperLogLogs of
 * the recent windows; ARGV = sinceMs, untilMs, then the recent window starts (the history's field names).
 * Only windows that had lookups cost a PFCOUNT. Reply: union count, one requester count per recent window,
 * then (start, hits) pairs of the history fields in [sinceMs, untilMs), unordered.
 */
export const readActivityScript = defineScript({
  SCRIPT: `
local since, till = tonumber(ARGV[1]), tonumber(ARGV[2])
local history = redis.call('HGETALL', KEYS[1])
local had = {}
local pairs_out = {}
for i = 1, #history, 2 do
  local start = tonumber(history[i])
  had[history[i]] = true
  if start >= since and start < till then
    pairs_out[#pairs_out + 1] = start
    pairs_out[#pairs_out + 1] = tonumber(history[i + 1])
  end
end
local out = {0}
local live = {}
for i = 3, #ARGV do
  if had[ARGV[i]] then
    out[#out + 1] = redis.call('PFCOUNT', KEYS[i - 1])
    live[#live + 1] = KEYS[i - 1]
  else
    out[#out + 1] = 0
  end
end
if #live > 0 then out[1] = redis.call('PFCOUNT', unpack(live)) end
for i = 1, #pairs_out do out[#out + 1] = pairs_out[i] end
return out`,
  parseCommand(
    parser: CommandParser,
    historyKey: string,
    requestersKeys: string[],
    sinceMs: number,
    untilMs: number,
    recentStartsMs: readonly number[],
  ) {
    parser.push(String(1 + requestersKeys.length));
    parser.pushKey(historyKey);
    parser.pushKeys(requestersKeys);
    parser.push(String(sinceMs), String(untilMs), ...recentStartsMs.map(String));
  },
  transformReply: (reply: unknown) => reply as number[],
});

/** A counter brought from another store: SET NX PXAT in one step. Reply 1 set, 0 already there (left alone). */
export const seedScript = defineScript({
  NUMBER_OF_KEYS: 1,
  SCRIPT: `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PXAT', ARGV[2]) then
  return 1
end
return 0`,
  parseCommand(parser: CommandParser, key: string, value: number, expireAtMs: number) {
    parser.pushKey(key);
    parser.push(String(value), String(Math.trunc(expireAtMs)));
  },
  transformReply: (reply: unknown) => reply as number,
});
