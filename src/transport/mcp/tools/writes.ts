import { rateInputSchema, reportInputSchema, type RateInput, type ReportInput } from '../../../domain/memory/schemas.ts';
import { rateOperation, reportOperation, shapeRate, shapeReport } from '../../rest/writes.ts';
import { runOperation } from '../../rest/operation.ts';
import { rateResponse, reportResponse } from '../../rest/openapi-schemas.ts';
import type { ToolSpec } from '../tool.ts';

const replayed = { type: 'boolean', description: 'True when idempotency_key matched an earlier call: its answer is repeated and nothing was written.' };
const withReplayed = (schema: { properties: object }) => ({ ...schema, properties: { ...schema.properties, idempotent_replayed: replayed } });
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;

/** rate_ip: POST /risk_api/rate/ — the same operation, given the renamed arguments as REST gives its body. */
export const rateIp: ToolSpec<RateInput> = {
  name: 'rate_ip',
  title: 'Rate an IP address',
  description: 'Records quick feedback about an IP in your workspace\'s memory, as POST /risk_api/rate/: rating 1 (good), 0 (neutral) '
    + 'or -1 (bad), with an optional note (up to 1000 characters). The next score_ip of the IP shows it in workspace_memory. Free: never '
    + 'counted. Each call stores one more rating; pass idempotency_key to make a retry safe.',
  annotations: WRITE,
  input: rateInputSchema,
  idempotencyKey: true,
  output: withReplayed(rateResponse),
  async run(_input, ctx, raw) {
    const shaped = shapeRate(await runOperation(rateOperation, { input: raw, idempotencyKey: ctx.idempotencyKey }, ctx));
    return { ...shaped.body, idempotent_replayed: shaped.replayed };
  },
};

/** report_subject: POST /risk_api/report/. */
export const reportSubject: ToolSpec<ReportInput> = {
  name: 'report_subject',
  title: 'Report an outcome about a subject',
  description: 'Records a typed outcome event in your workspace\'s memory, as POST /risk_api/report/: about a subject given by kind and '
    + 'key (an IP address, domain, URL, e-mail address, account, transaction, organisation, ...), with an outcome_code, severity, title, '
    + 'summary, details, tags, related subjects (each with its role, e.g. source_ip), visibility and namespace. Keys are normalised by kind. '
    + 'The report shows up in explore_subject and search_reports, and in score_ip\'s workspace_memory for the IPs it names. Free: never '
    + 'counted. Each call stores one more report; pass idempotency_key to make a retry safe.',
  annotations: WRITE,
  input: reportInputSchema,
  idempotencyKey: true,
  output: withReplayed(reportResponse),
  async run(_input, ctx, raw) {
    const shaped = shapeReport(await runOperation(reportOperation, { input: raw, idempotencyKey: ctx.idempotencyKey }, ctx));
    return { ...shaped.body, idempotent_replayed: shaped.replayed };
  },
};
