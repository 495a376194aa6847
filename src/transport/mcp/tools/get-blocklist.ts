import {
  BLOCKLIST_LIMITS,
  blocklistToolInputSchema,
  type BlocklistInput,
} from '../../../domain/lookups/blocklist-input.ts';
import type { BlocklistOutcome } from '../../../domain/lookups/blocklist-request.ts';
import { compileOutput } from '../../operations/compile.ts';
import { blocklist, blocklistDocument } from '../../operations/blocklist.ts';
import { object, scoreQuota } from '../../operations/schemas.ts';
import type { ToolSpec } from '../tool.ts';

/** The blocklist's JSON document and the agent quota after it, which says when it resets (an agent reads no headers). */
const output = object({
  ...blocklistDocument.properties,
  quota: object(
    {
      ...scoreQuota.properties,
      resets_at: { type: 'string', format: 'date-time', description: 'Next 00:00 UTC, when the count resets.' },
    },
    { description: 'The daily agent quota after this call.' },
  ),
});
const { shape } = compileOutput<BlocklistOutcome>(output);

/** get_blocklist: the operation of GET /risk_api/blocklist/ in its JSON format, counted on the agent quota. */
export const getBlocklist: ToolSpec<BlocklistInput> = {
  name: 'get_blocklist',
  title: 'Get the firewall blocklist',
  description:
    'The IPs and CIDR blocks whose published evidence alone puts them at or above a level (level: low, medium, high (default) ' +
    "or critical; or min_score 10-100), under your workspace's override rules (allow removes, deny on an IP or block adds), riskiest " +
    `first, each with its score, level and source; at most limit entries (default ${BLOCKLIST_LIMITS.defaultEntries}, at most ` +
    `${BLOCKLIST_LIMITS.maxEntries}: ask for a few hundred unless you need the whole list). As GET /risk_api/blocklist/?format=json, ` +
    'which a firewall should fetch itself (with its ETag, in text, nftables or ipset form). Metered: ONE call on the daily agent ' +
    'quota per list, like score_ip; a refused call counts nothing.',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input: blocklistToolInputSchema,
  output,
  async run(input, ctx) {
    return shape(await blocklist.resolve(input, ctx));
  },
  render: (body) => {
    const b = body as { entries: Array<{ entry: string; score: number; level: string }>; matched: number };
    const lines = b.entries.map((e) => `${e.entry} ${e.score} ${e.level}`);
    return `${b.matched} entries qualify; ${b.entries.length} listed:\n${lines.join('\n')}`;
  },
};
