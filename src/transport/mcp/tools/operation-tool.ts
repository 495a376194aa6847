import { compileOutput } from '../../operations/compile.ts';
import type { Operation } from '../../operations/operation.ts';
import { from } from '../../operations/wire.ts';
import type { ToolSpec } from '../tool.ts';
import { viewerOf } from '../../http/request-context.ts';

/**
 * An MCP tool that is an operation of the catalogue: the operation's input and resolver, its answer shaped from
 * the operation's own output schema. What REST tells in headers an agent does not read is in the answer instead:
 * a metered answer's quota says when it resets, a write's whether it was a replay.
 */
export function operationTool<I, R>(
  op: Operation<I, R>,
  spec: Pick<ToolSpec<I>, 'name' | 'title' | 'description' | 'annotations' | 'render' | 'inputJsonSchema'>,
): ToolSpec<I> {
  let output = op.output as Schema;
  if (op.metering === 'metered') output = withResetsAt(output);
  if (op.idempotent) output = withReplayed(output, op.idempotent.replayed as (r: never) => boolean);
  const { shape } = compileOutput<R>(output);
  return {
    ...spec,
    input: op.input as ToolSpec<I>['input'],
    ...(op.idempotent ? { idempotencyKey: true } : {}),
    output: output as Record<string, unknown>,
    run(input, ctx) {
      const work = async () => shape(await op.resolve(input, ctx));
      return op.inTurn ? op.inTurn(viewerOf(ctx).workspaceId, input, work) : work();
    },
  };
}

type Schema = { properties: Record<string, { properties: Record<string, unknown> }> };

function withResetsAt(output: Schema): Schema {
  const quota = output.properties.quota!;
  return {
    ...output,
    properties: {
      ...output.properties,
      quota: {
        ...quota,
        properties: {
          ...quota.properties,
          resets_at: { type: 'string', format: 'date-time', description: 'Next 00:00 UTC, when the count resets.' },
        },
      },
    },
  };
}

/** REST's Idempotent-Replayed header as a property (not in `required`, as the tool has always listed it). */
function withReplayed(output: Schema, replayed: (result: never) => boolean): Schema {
  return {
    ...output,
    properties: {
      ...output.properties,
      idempotent_replayed: from(replayed, {
        type: 'boolean',
        description:
          'True when idempotency_key matched an earlier call: its answer is repeated and nothing was written.',
      }) as never,
    },
  };
}
