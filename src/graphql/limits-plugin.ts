import { GraphQLError, Lexer, Source, TokenKind, type ASTVisitor, type ExecutionResult, type ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { QUERY_LIMITS, aliasLimitRule, depthLimitRule, estimateCost, sizeVariables, tooComplex } from './limits.ts';
import type { DocumentNode } from 'graphql';
import { LruMap } from '../lru-map.ts';

/**
 * Applies QUERY_LIMITS to /graphql requests and reports each response's cost in
 * `extensions.cost`, so clients see how close they are to the budget.
 */
export function useQueryLimits(): Plugin {
  return {
    // Counted before yoga parses (its parse errors all become GRAPHQL_PARSE_FAILED), with the
    // lexer alone, stopping at the limit: an oversized document costs no more than the limit.
    onParams({ params, setResult }) {
      if (typeof params.query === 'string' && tooManyTokens(params.query)) {
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
        cost = cachedCost(args.schema, args.document, args.operationName, args.variableValues);
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

/**
 * Both checks depend only on the query text (and, for the cost, on the page-size variables), yet they
 * were a tenth of a /graphql score call: the answers are kept for the texts and documents seen.
 */
const tokenVerdicts = new LruMap<string, boolean>(1_000);
const MAX_CACHED_QUERY_CHARS = 10_000; // the cache holds at most ~10 MB of query texts
function tooManyTokens(query: string): boolean {
  if (query.length > MAX_CACHED_QUERY_CHARS) return tokensExceed(query, QUERY_LIMITS.maxTokens);
  let verdict = tokenVerdicts.get(query);
  if (verdict === undefined) tokenVerdicts.set(query, (verdict = tokensExceed(query, QUERY_LIMITS.maxTokens)));
  return verdict;
}

/** yoga's parse cache hands out one document object per query text, so the cost is kept per document,
 *  per operation and values of the variables that set page sizes (kept only when those are numbers: the
 *  only values a cost depends on, and small keys). A refusal (thrown) is not kept. */
const costs = new WeakMap<DocumentNode, { sizeVars: string[]; byKey: LruMap<string, number> }>();
function cachedCost(...[schema, document, operationName, variables]: Parameters<typeof estimateCost>): number {
  let entry = costs.get(document);
  if (!entry) costs.set(document, (entry = { sizeVars: sizeVariables(document), byKey: new LruMap(64) }));
  const sizes = entry.sizeVars.map((v) => variables?.[v] ?? null);
  if (sizes.some((v) => v !== null && typeof v !== 'number') || (operationName?.length ?? 0) > 200) {
    return estimateCost(schema, document, operationName, variables);
  }
  const key = JSON.stringify([operationName ?? null, ...sizes]);
  let cost = entry.byKey.get(key);
  if (cost === undefined) entry.byKey.set(key, (cost = estimateCost(schema, document, operationName, variables)));
  return cost;
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
