/**
 * The metered floor: bare node:http doing only what any metered score answer needs whatever computes the score:
 * read and JSON.parse the body, check the API key (HMAC-SHA256 with a pepper, compared in constant time), count
 * the call in Redis in one atomic step (a Lua script over node-redis, as the service's quota does) and
 * JSON.stringify an answer that carries the new count (~3.5 KB, shaped like a score response). What the service
 * costs above this row is the score itself and everything around it; what this row costs above the floor is not
 * the service's to remove. GET /healthz answers once Redis is connected.
 */
import { createServer } from 'node:http';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createClient } from 'redis';
import { METERED_FLOOR_KEY, scoreShapedAnswer } from './floor-answer.ts';

const pepper = randomBytes(32);
const keyHash = createHmac('sha256', pepper).update(METERED_FLOOR_KEY).digest();
const counter = `bench_floor_${randomBytes(4).toString('hex')}:quota`;
// Increment if below the limit, as a metered call does; the counter expires by itself.
const SCRIPT =
  "local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return n";

const json = (res: import('node:http').ServerResponse, status: number, text: string) =>
  res
    .writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) })
    .end(text);

async function main() {
  const redis = createClient({ url: process.env.REDIS_URL });
  await redis.connect();
  const sha = await redis.scriptLoad(SCRIPT);
  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    if (req.method === 'GET') return json(res, req.url === '/healthz' ? 200 : 404, '{"ok":true}');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let ip: string;
      try {
        ip = String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { ip?: unknown }).ip);
      } catch {
        return json(res, 400, '{"ok":false,"error":"invalid_json"}');
      }
      const key = req.headers['x-api-key'];
      const hash = createHmac('sha256', pepper)
        .update(typeof key === 'string' ? key : '')
        .digest();
      if (!timingSafeEqual(hash, keyHash)) return json(res, 401, '{"ok":false,"error":"invalid_api_key"}');
      redis.evalSha(sha, { keys: [counter], arguments: ['60000'] }).then(
        (used) => json(res, 200, JSON.stringify(scoreShapedAnswer(ip, Number(used)))),
        () => json(res, 503, '{"ok":false,"error":"quota_unavailable"}'),
      );
    });
  });
  server.listen(Number(process.env.PORT), '127.0.0.1');
  process.on('SIGTERM', () => {
    server.close(() => void redis.del(counter).finally(() => process.exit(0)));
    server.closeAllConnections();
  });
}
void main();
