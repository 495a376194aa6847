import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiKeyHeaders, requireApiKey, verifiedViewer } from '../http/api-key.ts';
import { readJsonObject } from '../http/body.ts';
import { snakeToCamelKeys } from '../../domain/validation.ts';
import { wireInput } from '../operations/input.ts';
import { overrideAuditSchema } from '../../domain/overrides/schemas.ts';
import type { ApiDeps } from '../http/request-context.ts';
import { sendAuditExport } from '../http/override-audit-export.ts';

/**
 * POST /risk_api/overrides/audit/: the workspace's audit trail as NDJSON (http/override-audit-export.ts, which the
 * control plane's download also answers with).
 */
export async function handleOverrideAudit(
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  deps: ApiDeps,
): Promise<void> {
  const viewer = await verifiedViewer(deps.verifier, req, requireApiKey(...apiKeyHeaders(req)));
  const input = wireInput(overrideAuditSchema, snakeToCamelKeys(await readJsonObject(req, deps.config.maxBodyBytes)));
  await sendAuditExport(res, deps.services.prisma, viewer.workspaceId, input, { requestId, log: deps.log });
}
