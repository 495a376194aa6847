import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { RequestContext } from '../http/request-context.ts';
import type { Logger } from '../../platform/log.ts';
import { PACKAGE_ROOT } from '../../platform/package-root.ts';
import { toAppError } from '../http/errors.ts';
import { failure, parseArguments, success } from './tool.ts';
import { TOOL_LISTING, TOOLS_BY_NAME } from './tools/index.ts';
import { contextOf } from './exchange.ts';

const { version } = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };
const INFO = { name: 'risk-api', title: 'IP risk scoring', version };
const INSTRUCTIONS =
  'IP risk scoring and the workspace memory it learns from. score_ip scores an IP and score_ips a list of them (metered on the ' +
  'agent quota, one call per distinct IP: get_quota shows what is left); get_dimensions reads the published evidence for free. Write what you learn back with rate_ip ' +
  '(quick good/neutral/bad feedback about an IP) and report_subject (a typed outcome about any identifier; report_subjects for a list): later score_ip calls, ' +
  "humans and other agents of the workspace see it. explore_subject and search_reports read the workspace's reports, ratings and " +
  'related subjects. A refused call is a tool result with isError and structuredContent {ok:false, error, message, details}.';

/**
 * The process's MCP server (stateless: it keeps nothing between requests, so any process answers any call).
 * Its tool listing, with the JSON Schemas, is built once; each tools/call runs with the context of the HTTP
 * request that carried it (the verified caller, the agent quota surface), which ExchangeMux attaches.
 */
export function mcpServer(log: Logger): Server {
  // The validator only checks elicitation answers, which this server never asks for.
  const server = new Server(INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: new AjvJsonSchemaValidator(),
  });
  server.setRequestHandler(ListToolsRequestSchema, () => TOOL_LISTING);
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    callTool(request.params.name, request.params.arguments ?? {}, contextOf(extra), log),
  );
  return server;
}

/** Bad arguments and refusals are tool results (isError) the model can read and act on; only an unknown tool is a protocol error. */
async function callTool(
  name: string,
  args: Record<string, unknown>,
  ctx: RequestContext,
  log: Logger,
): Promise<CallToolResult> {
  const spec = TOOLS_BY_NAME.get(name);
  if (!spec)
    throw new McpError(
      ErrorCode.InvalidParams,
      `Unknown tool: ${name}. tools/list names the tools: ${[...TOOLS_BY_NAME.keys()].join(', ')}.`,
    );
  try {
    const { input, raw, idempotencyKey } = parseArguments(spec, args);
    return success(await spec.run(input, { ...ctx, idempotencyKey }, raw), spec.render);
  } catch (e) {
    return failure(toAppError(e, ctx.requestId, log));
  }
}
