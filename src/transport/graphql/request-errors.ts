import type { Plugin } from 'graphql-yoga';
import type { ExecutionResult } from 'graphql';
import type { Logger } from '../../platform/log.ts';
import { withRequestId } from '../http/errors.ts';

/**
 * An execution's unknown failures are logged and answered under the request's own id (the X-Request-Id the
 * client got), for both GraphQL servers: the context carries the id, the server's maskError does not.
 */
export function useRequestErrors(log: Logger): Plugin<{ requestId: string }> {
  return {
    onExecute({ args }) {
      const { requestId } = args.contextValue as { requestId: string };
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in result) return; // incremental delivery is not enabled
          const mapped = withRequestId(result as ExecutionResult, requestId, log);
          if (mapped !== result) setResult(mapped);
        },
      };
    },
  };
}
