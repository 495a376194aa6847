import { dimensions } from '../../operations/dimensions.ts';
import type { ToolSpec } from '../tool.ts';
import { operationTool } from './operation-tool.ts';

/** get_dimensions: the operation of POST /risk_api/dimensions/ (free). */
export const getDimensions: ToolSpec<{ ip: string }> = operationTool(dimensions, {
  name: 'get_dimensions',
  title: 'Raw dimensional read of an IP',
  description:
    'The report hierarchy of an IPv4 or IPv6 address without the score wrapper, as POST /risk_api/dimensions/: for each of the ' +
    'eight dimensions (ip, subnet, isp, asn, org, city, region, country) the entity it resolves to (key, name, size in addresses), ' +
    "the published summary (score, level, evidence counts, reporters, first and last seen) and your workspace's own layer, plus the " +
    'special-purpose range an address belongs to (private, documentation, ...). Free: never counted.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
