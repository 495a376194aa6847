import createClient from 'openapi-fetch';
import type { paths } from './openapi-types.ts';

/**
 * A typed client of the REST API, as a client developer makes one (README, docs/api.md "Typed client"): the types
 * generated from openapi.json by openapi-typescript, the calls made by openapi-fetch. Paths, bodies, parameters and
 * answers are checked by the compiler.
 */
export function riskApiClient(baseUrl: string, apiKey: string) {
  return createClient<paths>({ baseUrl, headers: { 'X-API-Key': apiKey } });
}
