import { BLOCK_BOUNDS } from '../../../domain/network/block.ts';
import { DEFAULT_BLOCK_PAGE, MAX_BLOCK_PAGE, type BlockInput } from '../../../domain/lookups/block-check.ts';
import { checkBlock as checkBlockOperation } from '../../operations/check-block.ts';
import type { ToolSpec } from '../tool.ts';
import { operationTool } from './operation-tool.ts';

/** check_block: the operation of POST /risk_api/check_block/, counted on the agent quota (the context's surface). */
export const checkBlock: ToolSpec<BlockInput> = operationTool(checkBlockOperation, {
  name: 'check_block',
  title: 'Check a CIDR block',
  description:
    `Checks a CIDR block (IPv4 /${BLOCK_BOUNDS[4]} to /32, IPv6 /${BLOCK_BOUNDS[6]} to /128; host bits set are cleared), as ` +
    'POST /risk_api/check_block/ does: the subnet, AS and organisation holding the whole block with their published summaries (or why ' +
    'none holds it), the reports your workspace may see naming its IPs (your own and community-visible ones) counted by outcome, your ' +
    'ratings, first and last seen, the community signal of its subnet, and a page of its reported and rated IPs in address order, each ' +
    `with its score (limit 1-${MAX_BLOCK_PAGE}, default ${DEFAULT_BLOCK_PAGE}; pass next_cursor as cursor for the next page). ` +
    'Metered: each page counts as ONE call on the daily agent quota, like score_ip; a refused call counts nothing. ' +
    'Use it to see whether a range is being abused before scoring its addresses one by one.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  render: renderBlock,
});

type Counts = { good: number; neutral: number; bad: number };
type Network = { key: string; name: string } | null;
/** The parts of the answer the text block reads (the whole answer is the output schema's). */
type BlockAnswer = {
  quota: { used_today: number; daily_limit: number; resets_at: string };
  block: {
    cidr: string;
    size: string;
    networks: { subnet: Network; asn: Network; org: Network; reason: string | null };
    counts_by_outcome: Record<string, number>;
    reports: number;
    ratings: Counts;
    community_signal: { subnet: { state: { label: string }; metrics: { lookups_10m: number } } | null };
  };
  ips: { items: Array<{ ip: string; score: number; level: string; reports: number }>; next_cursor: string | null };
};

/** The text block: the block's verdict and its page of IPs at a glance; every field is in structuredContent. */
function renderBlock(body: Record<string, unknown>): string {
  const b = body as BlockAnswer;
  const k = b.block;
  const outcomes = Object.entries(k.counts_by_outcome)
    .map(([code, n]) => `${code} ${n}`)
    .join(', ');
  const owner = k.networks.asn
    ? `${k.networks.subnet!.key} (${k.networks.asn.key}${k.networks.org ? `, ${k.networks.org.name}` : ''})`
    : `no single network: ${k.networks.reason}`;
  const ips = b.ips.items.map((i) => `${i.ip}: ${i.score}/100 (${i.level}), ${i.reports} reports`).join('\n');
  return (
    `${k.cidr} (${k.size} addresses) in ${owner}.\n` +
    `Reports: ${k.reports}${outcomes ? ` (${outcomes})` : ''}; your ratings ${k.ratings.good} good, ${k.ratings.neutral} neutral, ${k.ratings.bad} bad.\n` +
    `Community signal: ${k.community_signal.subnet ? `${k.community_signal.subnet.state.label}, ${k.community_signal.subnet.metrics.lookups_10m} lookups in 10 min` : 'unavailable'}.\n` +
    `${ips || 'No reported or rated IPs'}${b.ips.next_cursor ? `\nMore: cursor ${b.ips.next_cursor}` : ''}\n` +
    `Agent quota: ${b.quota.used_today}/${b.quota.daily_limit} used today, resets ${b.quota.resets_at}.`
  );
}
