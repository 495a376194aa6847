import { builder } from '../builder.ts';
import { viewerOf, workspaceDbOf } from '../../http/request-context.ts';
import { requireIp } from '../../../domain/network/ip.ts';
import { AppError } from '../../../errors.ts';
import { LIMITS } from '../../../domain/memory/schemas.ts';
import { textCost } from '../cost.ts';

builder.prismaNode('Rating', {
  description: 'Quick feedback about an IP stored by `rate`.',
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'Rating id.' }),
    rating: t.exposeInt('rating', { description: '1 good, 0 neutral, -1 bad.' }),
    note: t.exposeString('note', {
      description: 'Free-text comment, empty when none.',
      extensions: { cost: textCost(LIMITS.note) },
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was stored.' }),
    subject: t.relation('subject', { description: 'The rated IP address subject.' }),
    ip: t.string({
      description: 'The rated IP address (canonical).',
      select: { subject: { select: { key: true } } },
      resolve: (rating) => rating.subject.key,
    }),
  }),
});

builder.queryField('ratingsOfIp', (t) =>
  t.prismaConnection(
    {
      type: 'Rating',
      cursor: 'id',
      description: 'Ratings of one IP address by the calling workspace over time, newest first.',
      args: {
        ip: t.arg.string({ required: true, description: 'IPv4 or IPv6 address (canonicalised like on write).' }),
        from: t.arg({ type: 'DateTime', description: 'Stored at or after this instant.' }),
        to: t.arg({ type: 'DateTime', description: 'Stored before this instant.' }),
      },
      totalCount: (_root, args, ctx) =>
        workspaceDbOf(ctx).rating.count({ where: ratingsWhere(args, viewerOf(ctx).workspaceId) }),
      resolve: (query, _root, args, ctx) =>
        workspaceDbOf(ctx).rating.findMany({
          ...query,
          where: ratingsWhere(args, viewerOf(ctx).workspaceId),
          orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        }),
    },
    { description: 'A page of ratings.' },
    { description: 'A rating with its cursor.' },
  ),
);

/**
 * The subject is matched with its workspace too: a rating's subject is always of the rating's
 * workspace (which the scoped client filters), so this selects the same rows, but it lets the
 * subject be found through its unique (workspace, kind, key) index instead of a scan of every
 * workspace's subjects.
 */
function ratingsWhere(args: { ip: string; from?: Date | null; to?: Date | null }, workspaceId: number) {
  const ip = requireIp(args.ip, 'ip');
  if (args.from && args.to && args.from >= args.to)
    throw new AppError('invalid_request', 'from must be before to.', [{ field: 'to', message: 'must be after from' }]);
  const createdAt = { ...(args.from ? { gte: args.from } : {}), ...(args.to ? { lt: args.to } : {}) };
  return {
    subject: { is: { workspaceId, kind: 'ipaddress', key: ip } },
    ...(args.from || args.to ? { createdAt } : {}),
  };
}
