/**
 * The fixed vocabularies (outcome codes, severities, ratings) and every constant of the evidence
 * formula in one place, so the README table and the code cannot disagree. See `evidence.ts` for
 * how they combine.
 */

/** Outcome codes that raise risk, heaviest first, then the two that lower it. */
export const OUTCOME_CODES = [
  'fraud_confirmed',
  'chargeback',
  'account_takeover',
  'credential_stuffing',
  'fraud_watch',
  'spam',
  'scraping',
  'bot_activity',
  'abuse_other',
  'legitimate',
  'false_positive',
] as const;
export type OutcomeCode = (typeof OUTCOME_CODES)[number];

/**
 * Signed base weight of a report by outcome: positive raises risk, negative lowers it.
 * Good outcomes are NOT scaled by severity (severity describes harm; a "critical" legitimate
 * report must not whitewash more than a plain one).
 */
export const OUTCOME_WEIGHTS: Readonly<Record<OutcomeCode, number>> = Object.freeze({
  fraud_confirmed: 1.0,
  chargeback: 0.9,
  account_takeover: 0.85,
  credential_stuffing: 0.75,
  fraud_watch: 0.6,
  spam: 0.5,
  scraping: 0.4,
  bot_activity: 0.35,
  abuse_other: 0.3,
  legitimate: -0.6,
  false_positive: -0.8,
});

export const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Multiplier applied to harmful outcomes. Unknown severities count as `medium`. */
export const SEVERITY_MULTIPLIERS: Readonly<Record<Severity, number>> = Object.freeze({
  info: 0.25,
  low: 0.5,
  medium: 1,
  high: 1.5,
  critical: 2,
});

/** Rating values: 1 = good, 0 = neutral, -1 = bad. Weight = signed risk mass of one rating. */
export const RATING_WEIGHTS: Readonly<Record<-1 | 0 | 1, number>> = Object.freeze({ [-1]: 0.5, 0: 0, 1: -0.5 });

/** Risk mass of a feed listing with operator weight 1 (≈ one high-severity confirmed-fraud report). */
export const FEED_MASS = 1.5;

/**
 * The slow clock: the workspace's own verdict (own-verdict.ts; held as sums in SubjectMemory on this half-life) and
 * confidence's recency halve every 30 days. Feed listings never decay while listed.
 */
export const HALF_LIFE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Reports and ratings summarised for an entity above the IP (subnet, AS, organisation, ISP, place) halve every 30
 * days: a network's reputation (how its operator handles abuse) changes slowly, and the early warning of its other
 * addresses rests on it. Decision 0060.
 */
export const NETWORK_HALF_LIFE_MS = HALF_LIFE_MS;

/**
 * Reports and ratings summarised for the IP itself, in every published layer, halve every 3 days: an address's own
 * abuse is an episode of days (a host cleaned, a tenant gone, an address handed to someone else), and evidence that
 * halved only monthly kept formerly abusive IPs at high for weeks after the episode ended. Decision 0060.
 */
export const IP_HALF_LIFE_MS = 3 * 24 * 60 * 60 * 1000;

/** Per-source saturation cap C: one workspace (or one feed) contributes at most this much mass. */
export const SOURCE_CAP = 2;

/**
 * Per-workspace cap on an entity above the IP (subnet, AS, organisation, ISP, place): one workspace's mass there
 * saturates at 0.6, so one reporter alone never brings a network past `low` (100·(1 − e^(−0.3)) = 26) however many
 * of its addresses it reports; a network's level takes several witnesses. Feeds, chosen and weighted by the
 * operator, keep SOURCE_CAP. Decision 0039.
 */
export const NETWORK_SOURCE_CAP = 0.6;

/** Bad mass P maps to 100·(1 − e^(−P/K_BAD)). */
export const K_BAD = 2;

/** Good mass N multiplies the score by e^(−N/K_GOOD). */
export const K_GOOD = 2;
