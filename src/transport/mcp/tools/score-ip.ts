import { score } from '../../operations/score.ts';
import type { ToolSpec } from '../tool.ts';
import { operationTool } from './operation-tool.ts';
import { renderScore } from './score-ip-text.ts';

/** score_ip: the operation of POST /risk_api/score/, counted on the agent quota (the context's surface). */
export const scoreIp: ToolSpec<{ ip: string }> = operationTool(score, {
  name: 'score_ip',
  title: 'Score an IP address',
  description:
    'Scores an IPv4 or IPv6 address for risk, as POST /risk_api/score/ does. Answers the overall score (0-100) and risk level ' +
    '(minimal, low, medium, high, critical); all eight dimensions (ip, subnet, isp, asn, org, city, region, country), each with its entity, ' +
    'score, weight, contribution to the overall score and evidence counts, or the reason it did not match; the community signal (lookups of ' +
    'this IP by every workspace over 10-minute windows); what your workspace itself recorded about the IP (ratings tally, last rating, ' +
    'reports); links to the direct report pages; and the agent quota after this call. ' +
    "Metered: each successful call counts once on the workspace's daily agent quota (see get_quota), separate from the API's; a refused " +
    'call counts nothing. Use get_dimensions for a free read of the published evidence without the score.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  render: renderScore,
});
