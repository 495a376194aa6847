/** The blocklist's examples in the OpenAPI document (documentation addresses: RFC 5737 and RFC 3849). */
const entries = [
  { entry: '203.0.113.7', kind: 'ip', score: 97, level: 'critical', source: 'evidence' },
  { entry: '198.51.100.23', kind: 'ip', score: 85, level: 'critical', source: 'rule' },
  { entry: '2001:db8:4::/48', kind: 'block', score: 66, level: 'high', source: 'evidence' },
];

export const blocklistExample = {
  ok: true,
  endpoint: 'blocklist',
  threshold: { min_score: 60, level: 'high' },
  matched: 3,
  truncated: false,
  rules_not_listed: 0,
  publication: { version: 42, published_at: '2026-11-26T08:00:00.000Z' },
  entries,
};

export const blocklistTextExample = entries.map((e) => `${e.entry}\n`).join('');

export const blocklistCsvExample = `entry,kind,score,level,source\r\n${entries
  .map((e) => `${e.entry},${e.kind},${e.score},${e.level},${e.source}\r\n`)
  .join('')}`;
