import {
  getNamedType,
  isAbstractType,
  isObjectType,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';

/**
 * Which operations graphql-jit may compile. graphql-jit rebuilds `info.path` for every resolver
 * call, so Pothos' Prisma plugin cannot find the selection it planned for rows nested in a list
 * and loads each of them again (docs/decisions/0009-graphql-jit-for-fixed-operations.md). Operations that reach no Prisma-backed type — the
 * score, whose ~200 plain fields are where jit pays — keep it; the analyst graph does not.
 * Decided once per parsed document (yoga caches documents, so the same object comes back).
 */
const decided = new WeakMap<DocumentNode, boolean>();

export function jitCompatible(schema: GraphQLSchema, document: DocumentNode): boolean {
  let known = decided.get(document);
  if (known === undefined) {
    known = !reachesPrismaType(schema, document);
    decided.set(document, known);
  }
  return known;
}

function isPrismaBacked(schema: GraphQLSchema, type: GraphQLNamedType): boolean {
  const prisma = (t: GraphQLNamedType) =>
    isObjectType(t) && Boolean((t.extensions as { pothosPrismaModel?: unknown }).pothosPrismaModel);
  return prisma(type) || (isAbstractType(type) && schema.getPossibleTypes(type).some(prisma));
}

function reachesPrismaType(schema: GraphQLSchema, document: DocumentNode): boolean {
  const typeInfo = new TypeInfo(schema);
  let found = false;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field() {
        const type = typeInfo.getType();
        if (type && isPrismaBacked(schema, getNamedType(type))) found = true;
      },
    }),
  );
  return found;
}
