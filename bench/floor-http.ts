/**
 * The REST floor: bare node:http that reads the JSON body, JSON.parses it and answers a static
 * JSON body the size of a score response (~1.5 KB). Nothing the service does can be cheaper, so
 * the service's requests/s are reported as a fraction of this server's, measured in the same run.
 */
import { createServer } from 'node:http';

const dimension = (code: string, key: string, score: number) => ({
  code, matched: true, score, level: score >= 30 ? 'medium' : 'low', entity: { key, name: key },
  report_url: `http://127.0.0.1/reports/${code}/${encodeURIComponent(key)}`,
});
const body = JSON.stringify({
  ok: true, endpoint: 'score', query: { ip: '203.0.113.9' },
  api_key: { name: 'bench 0', prefix: 'rk_Ab3dE5fG' },
  quota: { daily_limit: 5000000, used_today: 12345, remaining: 4987655, over_limit: false, resets_at: '2026-11-24T00:00:00.000Z' },
  score: {
    overall_score: 41, overall_risk_level: 'medium', matched_count: 7,
    dimensions: [
      dimension('ip', '203.0.113.9', 41), dimension('subnet', '203.0.113.0/24', 22), dimension('isp', 'example telecom', 12),
      dimension('asn', 'AS64500', 12), dimension('org', 'example telecom ltd', 9), dimension('city', 'AU-victoria-melbourne', 3),
      dimension('region', 'AU-victoria', 2), dimension('country', 'AU', 1),
    ],
  },
  community_signal: {
    ok: true, state: { label: 'quiet', has_spike: false },
    metrics: { lookups_10m: 3, requesters_60m: 2, spike_windows_7d: 0 },
    recent_query_windows: [{ label: '10:00', hits: 2, requesters: 1 }, { label: '10:10', hits: 1, requesters: 1 }],
  },
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
