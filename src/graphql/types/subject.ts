import { builder } from '../builder.ts';
import { viewerOf } from '../context.ts';
import { AppError } from '../../errors.ts';
import { normalizeSubjectKey } from '../../domain/subjects/normalize.ts';
import { SUBJECT_KIND_CODES, type SubjectKind } from '../../domain/subjects/kinds.ts';

export const SubjectType = builder.prismaObject('Subject', {
  description: 'A thing reports are about, identified by kind and normalised key, within one workspace.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Numeric id of this subject node.' }),
    kind: t.exposeString('kind', { description: `Identifier family: ${SUBJECT_KIND_CODES.join(', ')}.` }),
    key: t.exposeString('key', { description: 'The normalised identifier.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When this workspace first mentioned it.' }),
    reports: t.relation('reports', {
      description: 'Reports whose main subject this is, newest first.',
      query: { orderBy: { id: 'desc' }, take: 100 },
    }),
    mentions: t.relation('links', {
      description: 'Links from reports that name this subject as a related subject (with the role it played), newest first.',
      query: { orderBy: { reportId: 'desc' }, take: 100 },
    }),
    ratings: t.relation('ratings', {
      description: 'Ratings of this subject (IP addresses only), newest first.',
      query: { orderBy: { id: 'desc' }, take: 100 },
    }),
  }),
});

builder.queryField('subject', (t) =>
  t.prismaField({
    type: 'Subject',
    nullable: true,
    description: 'A subject of the calling workspace by kind and key (the key is normalised first, as on write).',
    args: {
      kind: t.arg.string({ required: true, description: `One of: ${SUBJECT_KIND_CODES.join(', ')}.` }),
      key: t.arg.string({ required: true }),
    },
    resolve: (query, _root, args, ctx) => {
      const viewer = viewerOf(ctx);
      if (!(SUBJECT_KIND_CODES as readonly string[]).includes(args.kind)) {
        throw new AppError('invalid_request', `kind must be one of: ${SUBJECT_KIND_CODES.join(', ')}`, [{ field: 'kind', message: 'unknown kind' }]);
      }
      const normalized = normalizeSubjectKey(args.kind as SubjectKind, args.key);
      if (!normalized.ok) throw new AppError('invalid_request', `key ${normalized.reason}`, [{ field: 'key', message: normalized.reason }]);
      return ctx.prisma.subject.findUnique({
        ...query,
        where: { workspaceId_kind_key: { workspaceId: viewer.workspaceId, kind: args.kind, key: normalized.key } },
      });
    },
  }));
