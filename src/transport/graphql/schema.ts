import { builder } from './builder.ts';
import './types/workspace.ts';
import './types/subject.ts';
import './types/report.ts';
import './types/rating.ts';
import './types/writes.ts';
import './types/report-bulk.ts';
import './types/network.ts';
import './types/score.ts';
import './types/score-batch.ts';
import './types/block.ts';
import './types/overrides.ts';
import './types/watches.ts';
import './types/webhooks.ts';

import './types/analyst.ts';
import { isObjectType, type GraphQLSchema } from 'graphql';
import { completeLongListsInTurns } from './turns.ts';
import { completeMutationWrites } from './mutation-writes.ts';
import { subGraph } from './sub-graph.ts';

/** The API-key graph served by /graphql and executed directly by the /risk_api REST facade. */
export const schema = completeMutationWrites(
  completeLongListsInTurns(describeTotalCounts(subGraph(builder.toSchema(), { query: 'Query', mutation: 'Mutation' }))),
);

/** The Prisma plugin adds `totalCount` to connections without a description; every field has one. */
function describeTotalCounts(s: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(s.getTypeMap())) {
    if (!isObjectType(type)) continue;
    const field = type.getFields().totalCount;
    if (field && !field.description) field.description = 'Number of items matching, over all pages.';
  }
  return s;
}
