/**
 * The GraphQL floor: graphql-yoga with a one-field schema answering `{ hello }`, configured like
 * the service's yoga (no logging, no landing page). Its cost is yoga's HTTP adaptation plus
 * parse/validate/execute of a trivial document: what any GraphQL request here pays at least.
 */
import { createServer } from 'node:http';
import { createSchema, createYoga } from 'graphql-yoga';

const yoga = createYoga({
  schema: createSchema({ typeDefs: 'type Query { hello: String! }', resolvers: { Query: { hello: () => 'world' } } }),
  graphqlEndpoint: '/graphql',
  logging: false,
  landingPage: false,
});
const server = createServer({ keepAliveTimeout: 65_000 }, yoga);
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
