/**
 * The event types a webhook endpoint can ask for. One list: the schemas, the docs and the pages read it.
 * - watch.score_crossed   a new publication moved a watched target's score across the watch's threshold
 * - watch.level_changed   a new publication changed a watched target's risk level
 * - watch.spike_started   the community signal of a watched IP or network started spiking
 * - watch.reported        a community-visible report from another workspace names a watched subject
 * - key.new_country       one of the workspace's API keys was used from a country it had not been used from
 * - endpoint.test         sent on request, to check an endpoint receives and verifies deliveries
 */
export const WEBHOOK_EVENT_TYPES = [
  'watch.score_crossed',
  'watch.level_changed',
  'watch.spike_started',
  'watch.reported',
  'key.new_country',
  'endpoint.test',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
