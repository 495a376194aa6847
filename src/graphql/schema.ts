import { builder } from './builder.ts';
import './types/workspace.ts';
import './types/subject.ts';
import './types/report.ts';
import './types/rating.ts';
import './types/writes.ts';
import './types/network.ts';
import './types/score.ts';

/** The one schema served by /graphql and executed directly by the /risk_api REST facade. */
export const schema = builder.toSchema({ sortSchema: true });
