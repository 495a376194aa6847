import { BLOCK_BOUNDS } from '../../../domain/network/block.ts';
import { DEFAULT_BLOCK_PAGE, MAX_BLOCK_PAGE, checkBlockInputSchema, type BlockInput } from '../../../domain/lookups/block-check.ts';
import { checkBlockOperation, shapeCheckBlock, type CheckBlockData } from '../../rest/check-block.ts';
import { runOperation } from '../../rest/operation.ts';
import { checkBlockResponse } from '../../rest/openapi-schemas.ts';
import type { ToolSpec } from '../tool.ts';

const quota = checkBlockResponse.properties.quota;

/** REST's check_block answer, whose quota is the agent surface's and says when it resets (an agent reads no headers). */
const output = {
  ...checkBlockResponse,
  properties: {
    ...checkBlockResponse.properties,
    quota: { ...quota, properties: { ...quota.properties, resets_at: { type: 'string', format: 'date-time', description: 'Next 00:00 UTC, when the count resets.' } } },
  },
};

/** check_block: the same fixed query as POST /risk_api/check_block/, counted on the agent quota (the context's surface). */
export const checkBlock: ToolSpec<BlockInput> = {
  name: 'check_block',
  title: 'Check a CIDR block',
  description: `Checks a CIDR block (IPv4 /${BLOCK_BOUNDS[4]} to /32, IPv6 /${BLOCK_BOUNDS[6]} to /128; host bits set are cleared), as `
    + 'POST /risk_api/check_block/ does: the subnet, AS and organisation holding the whole block with their published summaries (or why '
    + 'none holds it), the reports your workspace may see naming its IPs (your own and community-visible ones) counted by outcome, your '
    + 'ratings, first and last seen, the community signal of its subnet, and a page of its reported and rated IPs in address order, each '
    + `with its score (limit 1-${MAX_BLOCK_PAGE}, default ${DEFAULT_BLOCK_PAGE}; pass next_cursor as cursor for the next page). `
    + 'Metered: each page counts as ONE call on the daily agent quota, like score_ip; a refused call counts nothing. '
    + 'Use it to see whether a range is being abused before scoring its addresses one by one.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input: checkBlockInputSchema,
  output,
  async run(_input, ctx, raw) {
    // The resolver reads the checked input from the context (ctx.input); the variables only satisfy the operation.
    const data = await runOperation<CheckBlockData>(checkBlockOperation, { cidr: String(raw.cidr) }, ctx);
    const { body } = shapeCheckBlock(data);
    return { ...body, quota: { ...body.quota, resets_at: data.block.quota.resetsAt } };
  },
  render: renderBlock,
};

/** The text block: the block's verdict and its page of IPs at a glance; every field is in structuredContent. */
function renderBlock(body: Record<string, unknown>): string {
  const b = body as ReturnType<typeof shapeCheckBlock>['body'] & { quota: { resets_at: string } };
  const k = b.block;
  const outcomes = Object.entries(k.counts_by_outcome).map(([code, n]) => `${code} ${n}`).join(', ');
  const owner = k.networks.asn ? `${k.networks.subnet!.key} (${k.networks.asn.key}${k.networks.org ? `, ${k.networks.org.name}` : ''})` : `no single network: ${k.networks.reason}`;
  const ips = b.ips.items.map((i) => `${i.ip}: ${i.score}/100 (${i.level}), ${i.reports} reports`).join('\n');
  return `${k.cidr} (${k.size} addresses) in ${owner}.\n`
    + `Reports: ${k.reports}${outcomes ? ` (${outcomes})` : ''}; your ratings ${k.ratings.good} good, ${k.ratings.neutral} neutral, ${k.ratings.bad} bad.\n`
    + `Community signal: ${k.community_signal.subnet ? `${k.community_signal.subnet.state.label}, ${k.community_signal.subnet.metrics.lookups_10m} lookups in 10 min` : 'unavailable'}.\n`
    + `${ips || 'No reported or rated IPs'}${b.ips.next_cursor ? `\nMore: cursor ${b.ips.next_cursor}` : ''}\n`
    + `Agent quota: ${b.quota.used_today}/${b.quota.daily_limit} used today, resets ${b.quota.resets_at}.`;
}
