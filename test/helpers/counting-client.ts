import type { PrismaClient } from '../../src/generated/prisma/client.ts';

/** The client's raw queries, counted: what a group commit is given, so a test sees how many statements it ran. */
export function countingClient(prisma: PrismaClient) {
  const counted = {
    statements: 0,
    $queryRaw: ((...args: Parameters<PrismaClient['$queryRaw']>) => {
      counted.statements++;
      return prisma.$queryRaw(...args);
    }) as PrismaClient['$queryRaw'],
  };
  return counted;
}
