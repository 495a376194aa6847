import { GraphQLError, Lexer, Source, TokenKind, type ASTVisitor, type ExecutionResult, type ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { QUERY_LIMITS, aliasLimitRule, depthLimitRule, estimateCost, tooComplex } from './limits.ts';

/**
 * Applies QUERY_LIMITS to /graphql requests and reports each response's cost in
 * `extensions.cost`, so clients see how close they are to the budget.
 */
export function useQueryLimits(): Plugin {
  return {
    // Counted before yoga parses (its parse errors all become GRAPHQL_PARSE_FAILED), with the
    // lexer alone, stopping at the limit: an oversized document costs no more than the limit.
    onParams({ params, setResult }) {
      if (typeof params.query === 'string' && tokensExceed(params.query, QUERY_LIMITS.maxTokens)) {
        setResult({ errors: [tooComplex('maxTokens', `The query has more than ${QUERY_LIMITS.maxTokens} tokens.`)] });
      }
    },
    onValidate({ addValidationRule }) {
      addValidationRule(depthLimitRule);
      addValidationRule(aliasLimitRule);
      addValidationRule(knownOperationTypeRule);
    },
    onExecute({ args, setResultAndStopExecution }) {
      let cost: number;
      try {
        cost = estimateCost(args.schema, args.document, args.operationName, args.variableValues);
      } catch (e) {
        if (e instanceof GraphQLError) { setResultAndStopExecution({ errors: [e] }); return; }
        throw e;
      }
      const extension = { requested: cost, maximum: QUERY_LIMITS.maxCost };
      if (cost > QUERY_LIMITS.maxCost) {
        setResultAndStopExecution({
          errors: [tooComplex('maxCost', `The query is estimated at ${cost} cost points; the budget is ${QUERY_LIMITS.maxCost}. Ask for smaller pages or fewer nested lists.`, { actual: cost })],
          extensions: { cost: extension },
        });
        return;
      }
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in result) return; // incremental delivery is not enabled
          const r = result as ExecutionResult;
          setResult({ ...r, extensions: { ...r.extensions, cost: extension } });
        },
      };
    },
  };
}

function tokensExceed(query: string, max: number): boolean {
  const lexer = new Lexer(new Source(query));
  try {
    for (let n = 0; lexer.advance().kind !== TokenKind.EOF; n++) if (n >= max) return true;
  } catch { return false; } // a syntax error: let the parser report it
  return false;
}

/**
 * graphql 16 lets `subscription { … }` through validation on a schema without that root type
 * (graphql 17's KnownOperationTypesRule), and the executor then throws: an internal error. Refused here instead.
 */
export function knownOperationTypeRule(context: ValidationContext): ASTVisitor {
  return {
    OperationDefinition(op) {
      const schema = context.getSchema();
      const root = op.operation === 'query' ? schema.getQueryType() : op.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
      if (!root) context.reportError(new GraphQLError(`This API has no ${op.operation} operations.`, { nodes: op }));
    },
  };
}
