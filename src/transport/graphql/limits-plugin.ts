import {
  GraphQLError,
  Lexer,
  Source,
  TokenKind,
  type ASTVisitor,
  type ExecutionResult,
  type ValidationContext,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { QUERY_LIMITS, aliasLimitRule, depthLimitRule, tooComplex } from './limits.ts';
import { estimateCost } from './cost.ts';
import { variablesRefusal } from './variables.ts';
import type { DocumentNode } from 'graphql';
import { LruMap } from '../../platform/lru-map.ts';

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
        return;
      }
      const refused = variablesRefusal(params.variables);
      if (refused) setResult({ errors: [refused] });
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
        if (e instanceof GraphQLError) {
          setResultAndStopExecution({ errors: [e] });
          return;
        }
        throw e;
      }
      estimatedCosts.set(args.contextValue as object, cost);
      const extension = { requested: cost, maximum: QUERY_LIMITS.maxCost };
      if (cost > QUERY_LIMITS.maxCost) {
        setResultAndStopExecution({
          errors: [
            tooComplex(
              'maxCost',
              `The query is estimated at ${cost} cost points; the budget is ${QUERY_LIMITS.maxCost}. Ask for smaller pages or fewer nested lists.`,
              { actual: cost },
            ),
          ],
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

/** Each execution's estimate, for the ceilings that depend on it (heavy queries take turns: ceilings.ts). */
const estimatedCosts = new WeakMap<object, number>();
export function estimatedCostOf(context: object): number {
  return estimatedCosts.get(context) ?? 0;
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

/**
 * yoga's parse cache hands out one document object per query text, so the cost is kept per document,
 * per operation and values of the variables the estimate read (it names them: page sizes, `ids`),
 * so it is never reused for values that cost differently. A refusal (thrown) is not kept; neither
 * are keys over 1,000 characters (a long `ids` list: estimating again is cheaper than keeping it).
 */
const costs = new WeakMap<DocumentNode, LruMap<string, { variables: string[]; byValues: LruMap<string, number> }>>();
const MAX_COST_KEY_CHARS = 1_000;
function cachedCost(...[schema, document, operationName, variables]: Parameters<typeof estimateCost>): number {
  let perOperation = costs.get(document);
  if (!perOperation) costs.set(document, (perOperation = new LruMap(8)));
  const op = operationName ?? '';
  const entry = op.length <= 200 ? perOperation.get(op) : undefined;
  const sent = (variables ?? {}) as Record<string, unknown>;
  // [value] when sent, 0 when absent: absent takes the variable's default, which null does not.
  const keyOf = (names: string[]) =>
    JSON.stringify(names.map((v) => (Object.hasOwn(sent, v) && sent[v] !== undefined ? [sent[v]] : 0)));
  if (entry) {
    const key = keyOf(entry.variables);
    const known = entry.byValues.get(key);
    if (known !== undefined) return known;
  }
  const estimate = estimateCost(schema, document, operationName, variables);
  if (op.length > 200) return estimate.cost;
  const key = keyOf(estimate.variables);
  if (key.length > MAX_COST_KEY_CHARS) return estimate.cost;
  const kept = entry ?? { variables: estimate.variables, byValues: new LruMap<string, number>(64) };
  kept.byValues.set(key, estimate.cost);
  if (!entry) perOperation.set(op, kept);
  return estimate.cost;
}

function tokensExceed(query: string, max: number): boolean {
  const lexer = new Lexer(new Source(query));
  try {
    for (let n = 0; lexer.advance().kind !== TokenKind.EOF; n++) if (n >= max) return true;
  } catch {
    return false;
  } // a syntax error: let the parser report it
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
      const root =
        op.operation === 'query'
          ? schema.getQueryType()
          : op.operation === 'mutation'
            ? schema.getMutationType()
            : schema.getSubscriptionType();
      if (!root) context.reportError(new GraphQLError(`This API has no ${op.operation} operations.`, { nodes: op }));
    },
  };
}
