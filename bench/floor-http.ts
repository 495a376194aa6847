/**
 * The REST floor: bare node:http that reads the JSON body, JSON.parses it and answers a static
 * JSON body shaped and sized like a score response (~3.5 KB). Nothing the service does can be cheaper, so
 * the service's requests/s are reported as a fraction of this server's, measured in the same run.
 */
import { createServer } from 'node:http';

const base = 'http://127.0.0.1:8080/reports';
const dimension = (code: string, key: string, score: number, weight: number) => ({
  code, matched: true, score, entity: { key, name: key }, level: score >= 30 ? 'medium' : score >= 10 ? 'low' : 'minimal', weight,
  contribution: Math.round(score * weight), source: 'published', reason: null,
  evidence: { reports: 13, bad_ratings: 2, neutral_ratings: 0, good_ratings: 1, feed_listings: 0 },
});
const dimensions = [
  dimension('ip', '203.0.113.9', 41, 1), dimension('subnet', '203.0.112.0/22', 22, 0.6), dimension('isp', 'example telecom', 12, 0.4),
  dimension('asn', 'AS64500', 26, 0.45), dimension('org', 'example telecom pty ltd', 9, 0.4), dimension('city', 'AU-victoria-melbourne', 3, 0.2),
  dimension('region', 'AU-victoria', 2, 0.15), dimension('country', 'AU', 1, 0.1),
];
/** Shaped like a real score response (src/transport/rest/score.ts), so both servers write as many bytes. */
const body = JSON.stringify({
  ok: true, endpoint: 'score', query: { ip: '203.0.113.9' },
  api_key: { name: 'bench 0', prefix: 'rk_Ab3dE5fG' },
  quota: { daily_limit: 5000000, used_today: 12345, remaining: 4987655, over_limit: false },
  score: { overall_score: 41, overall_risk_level: 'medium', matched_count: 8, driver: 'ip', dimensions },
  community_signal: {
    ok: true, state: { label: 'quiet', has_spike: false },
    metrics: { lookups_10m: 3, requesters_60m: 2, spike_windows_7d: 0 },
    recent_query_windows: [{ label: '10:00', hits: 2, requesters: 1 }, { label: '10:10', hits: 1, requesters: 1 }],
  },
  links: { ip: `${base}/ip/203.0.113.9`, dimensions: Object.fromEntries(dimensions.map((d) => [d.code, `${base}/${d.code}/${encodeURIComponent(d.entity.key)}`])) },
  workspace_memory: { ratings: { good: 0, neutral: 0, bad: 1 }, last_rating: { rating: -1, note: 'card testing', created_at: '2026-11-23T10:04:00.000Z' }, reports: 2 },
  publication: { version: 1, published_at: '2026-11-23T10:00:00.000Z' },
});

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    try {
      if (chunks.length) JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"ok":false,"error":"invalid_json"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
