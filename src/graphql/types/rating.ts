import { builder } from '../builder.ts';

builder.prismaObject('Rating', {
  description: 'Quick feedback about an IP stored by `rate`.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Rating id.' }),
    rating: t.exposeInt('rating', { description: '1 good, 0 neutral, -1 bad.' }),
    note: t.exposeString('note', { description: 'Free-text comment, empty when none.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was stored.' }),
    subject: t.relation('subject', { description: 'The rated IP address subject.' }),
    ip: t.string({
      description: 'The rated IP address (canonical).',
      select: { subject: { select: { key: true } } },
      resolve: (rating) => rating.subject.key,
    }),
  }),
});
