import { z } from 'zod';
import { text, typeError, withDefault } from '../memory/schemas.ts';
import { parseNetworkTarget, parseSubjectTarget, WATCHABLE_SUBJECT_KINDS, type WatchTarget } from './target.ts';

/** Bounds of the watch surfaces and of detection (docs/watches.md, docs/security.md). */
export const WATCH_LIMITS = {
  /** Watches per workspace: creating one more is refused until one is deleted. */
  perWorkspace: 10_000,
  note: 1000,
  listPage: 100,
  defaultListPage: 50,
  /** Watches evaluated per transaction by a detection step: the work one lock holds at a time. */
  chunk: 200,
  /** Reports the report follower reads per transaction. */
  reportChunk: 500,
} as const;

export type CreateWatchInput = { target: WatchTarget; scoreThreshold: number | null; note: string };
export type UpdateWatchInput = { id: number; scoreThreshold?: number | null; note?: string };

const thresholdField = z
  .number({ error: typeError('an integer') })
  .int('must be an integer')
  .min(1, 'must be 1 to 100')
  .max(100, 'must be 1 to 100')
  .nullable()
  .optional()
  .meta({
    description:
      'A score from 1 to 100: watch.score_crossed fires when a new publication moves the score from below it to at or above it, or back. Absent or null: level changes only. Not used by subject watches.',
  });

const noteField = text(WATCH_LIMITS.note, true);

const targetText = z.string({ error: typeError('a string') }).meta({
  description:
    'An IP address, a CIDR block (IPv4 /8 to /32, IPv6 /16 to /128, host bits clear) or an AS number (AS64500). Exactly one of target and subject.',
});

const subjectField = z
  .strictObject(
    {
      kind: z
        .string({ error: typeError('a string') })
        .meta({ description: `A report subject kind: ${WATCHABLE_SUBJECT_KINDS.join(', ')}.` }),
      key: z
        .string({ error: typeError('a string') })
        .meta({ description: "The subject's key, normalised as reports normalise it." }),
    },
    { error: typeError('a JSON object') },
  )
  .meta({
    description:
      'A report subject other than an IP, block or AS (those are watched with target). Exactly one of target and subject.',
  });

const watchId = z
  .number({ error: typeError('an integer') })
  .int('must be an integer')
  .min(1, 'must be a watch id')
  .max(2_147_483_647, 'must be a watch id')
  .meta({ description: "The watch's id." });

/** The body of createWatch on every surface: checked whole before anything is written. */
export const createWatchSchema = z
  .strictObject(
    {
      target: targetText.nullable().optional(),
      subject: subjectField.nullable().optional(),
      scoreThreshold: thresholdField,
      note: withDefault(
        noteField,
        '',
        `Internal note (at most ${WATCH_LIMITS.note} characters), carried in every event of the watch.`,
      ),
    },
    { error: typeError('a JSON object') },
  )
  .transform((body, ctx): CreateWatchInput => {
    const hasTarget = body.target !== undefined && body.target !== null;
    const hasSubject = body.subject !== undefined && body.subject !== null;
    if (hasTarget === hasSubject) {
      ctx.addIssue({
        code: 'custom',
        path: hasTarget ? ['subject'] : ['target'],
        message: hasTarget ? 'must be absent when target is given' : 'is required (or subject)',
        input: body,
      });
      return z.NEVER;
    }
    const parsed = hasTarget
      ? parseNetworkTarget(body.target!)
      : parseSubjectTarget(body.subject!.kind, body.subject!.key);
    if (!parsed.ok) {
      ctx.addIssue({ code: 'custom', path: parsed.field.split('.'), message: parsed.reason, input: body });
      return z.NEVER;
    }
    const threshold = body.scoreThreshold ?? null;
    if (parsed.target.kind === 'subject' && threshold !== null) {
      ctx.addIssue({
        code: 'custom',
        path: ['scoreThreshold'],
        message: 'must be absent for a subject watch (subjects have no published score)',
        input: threshold,
      });
      return z.NEVER;
    }
    return { target: parsed.target, scoreThreshold: threshold, note: body.note };
  });

/** The update fields where null removes the value (no threshold); a null note leaves it unchanged. */
export const UPDATE_WATCH_CLEARABLE = ['scoreThreshold'] as const;

/** The body of updateWatch: the threshold or the note (a different target is a different watch). */
export const updateWatchSchema = z
  .strictObject(
    {
      id: watchId,
      scoreThreshold: thresholdField,
      note: noteField.optional().meta({ description: `New internal note (at most ${WATCH_LIMITS.note} characters).` }),
    },
    { error: typeError('a JSON object') },
  )
  .transform((body, ctx): UpdateWatchInput => {
    if (body.scoreThreshold === undefined && body.note === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'must change at least one of score_threshold, note',
        input: body,
      });
      return z.NEVER;
    }
    return body as UpdateWatchInput;
  });

export const deleteWatchSchema = z.strictObject({ id: watchId }, { error: typeError('a JSON object') });

export const listWatchesSchema = z.strictObject(
  {
    limit: withDefault(
      z
        .number({ error: typeError('an integer') })
        .int('must be an integer')
        .min(1, `must be 1 to ${WATCH_LIMITS.listPage}`)
        .max(WATCH_LIMITS.listPage, `must be 1 to ${WATCH_LIMITS.listPage}`),
      WATCH_LIMITS.defaultListPage,
      `Items per page, 1 to ${WATCH_LIMITS.listPage} (default ${WATCH_LIMITS.defaultListPage}).`,
    ),
    cursor: z
      .string({ error: typeError('a string') })
      .regex(/^[1-9]\d{0,9}$/, 'must be the next_cursor of a previous page')
      .transform(Number)
      .nullable()
      .optional()
      .meta({ description: 'next_cursor of the previous page (absent or null: the first page).' }),
  },
  { error: typeError('a JSON object') },
);
