import { listing, type ToolSpec } from '../tool.ts';
import { scoreIp } from './score-ip.ts';
import { scoreIps } from './score-ips.ts';
import { checkBlock } from './check-block.ts';
import { rateIp, reportSubject } from './writes.ts';
import { getDimensions } from './get-dimensions.ts';
import { exploreSubject } from './explore-subject.ts';
import { searchReports } from './search-reports.ts';
import { getQuota } from './get-quota.ts';
import { reportSubjects } from './report-subjects.ts';
import { getBlocklist } from './get-blocklist.ts';

const TOOLS = [
  scoreIp,
  scoreIps,
  checkBlock,
  rateIp,
  reportSubject,
  reportSubjects,
  getDimensions,
  exploreSubject,
  searchReports,
  getQuota,
  getBlocklist,
] as unknown as Array<ToolSpec<unknown>>;

export const TOOLS_BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));
/** The tools/list answer, built once at start (its JSON Schemas are generated from the same zod schemas that validate). */
export const TOOL_LISTING = { tools: TOOLS.map(listing) };
