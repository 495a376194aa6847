import {
  GraphQLObjectType,
  GraphQLSchema,
  isInterfaceType,
  lexicographicSortSchema,
  type GraphQLNamedType,
} from 'graphql';

/**
 * One graph of the builder's schema: the root types named (served as Query and Mutation), every type they reach,
 * and every implementation of an interface they reach (`node(id:)` answers any of them). The builder declares each
 * type once; /graphql and /workspace/graphql are two such graphs of it.
 */
export function subGraph(full: GraphQLSchema, roots: { query: string; mutation: string }): GraphQLSchema {
  const root = (name: string, as: string) => {
    const type = full.getType(name);
    if (!(type instanceof GraphQLObjectType)) throw new Error(`no root type ${name} in the schema`);
    return type.name === as ? type : new GraphQLObjectType({ ...type.toConfig(), name: as });
  };
  const query = root(roots.query, 'Query');
  const mutation = root(roots.mutation, 'Mutation');
  let types: GraphQLNamedType[] = [];
  for (;;) {
    const graph = new GraphQLSchema({ query, mutation, types });
    const implementations = Object.values(graph.getTypeMap())
      .filter(isInterfaceType)
      .flatMap((i) => full.getPossibleTypes(i))
      .filter((t) => !graph.getType(t.name));
    if (implementations.length === 0) return lexicographicSortSchema(graph);
    types = [...types, ...implementations];
  }
}
