import type { RateInput, ReportInput } from '../../../domain/memory/schemas.ts';
import { rate } from '../../operations/rate.ts';
import { report } from '../../operations/report.ts';
import type { ToolSpec } from '../tool.ts';
import { operationTool } from './operation-tool.ts';

const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;

/** rate_ip: the operation of POST /risk_api/rate/, its idempotency_key argument REST's Idempotency-Key header. */
export const rateIp: ToolSpec<RateInput> = operationTool(rate, {
  name: 'rate_ip',
  title: 'Rate an IP address',
  description:
    "Records quick feedback about an IP in your workspace's memory, as POST /risk_api/rate/: rating 1 (good), 0 (neutral) " +
    'or -1 (bad), with an optional note (up to 1000 characters). The next score_ip of the IP shows it in workspace_memory. Free: never ' +
    'counted. Each call stores one more rating; pass idempotency_key to make a retry safe.',
  annotations: WRITE,
});

/** report_subject: the operation of POST /risk_api/report/. */
export const reportSubject: ToolSpec<ReportInput> = operationTool(report, {
  name: 'report_subject',
  title: 'Report an outcome about a subject',
  description:
    "Records a typed outcome event in your workspace's memory, as POST /risk_api/report/: about a subject given by kind and " +
    'key (an IP address, domain, URL, e-mail address, account, transaction, organisation, ...), with an outcome_code, severity, title, ' +
    'summary, details, tags, related subjects (each with its role, e.g. source_ip), visibility and namespace. Keys are normalised by kind. ' +
    "The report shows up in explore_subject and search_reports, and in score_ip's workspace_memory for the IPs it names. Free: never " +
    'counted. Each call stores one more report; pass idempotency_key to make a retry safe.',
  annotations: WRITE,
});
