/**
 * Every input of the simulated world, with its default. `npm run evaluate -- --seed 7 --weeks 1 ...` sets any of them
 * (the flag is the name in kebab case); the quality checks are run on other seeds and parameter sets than these, so
 * nothing here is tuned to one world. docs/risk-model.md#measured-quality lists them with their meaning.
 */
export type WorldParams = {
  /** Seed of every random draw: the same seed and parameters give the same world. */
  seed: number;
  /** Simulated weeks; the service publishes every hour of them. */
  weeks: number;
  /** Days of history before the first sample (the model needs evidence to stand on). */
  warmupDays: number;
  /** Minutes per simulation step: events land on 10-minute community windows. */
  tickMinutes: number;
  /** How far after a sample time abuse counts as that sample's truth, in days: a score answers for the IP now. */
  truthHorizonDays: number;
  /** How far after a sample time later reports count (the reported-later AUC, early warning), in days. */
  reportHorizonDays: number;

  /** Benign IPs, drawn from announced prefixes of residential, mobile and other networks. */
  benignIps: number;
  /** Hosting ASes holding dense abuse, subnets (/24) of them full of it, and the share of a bad subnet that is abusive. */
  hostingAses: number;
  badSubnetsPerHostingAs: number;
  badSubnetDensity: number;
  /** Benign servers in the same hosting ASes (outside the bad subnets). */
  benignHostingIps: number;
  /** Compromised hosts scattered over residential ISPs. */
  compromisedResidentialIps: number;
  /** Shared (CGNAT, mobile) addresses where one abusive user hides among many benign ones. */
  sharedAbusiveIps: number;
  /** Mean days an abusive IP stays abusive (exponential), and the share of abusers already active at the start. */
  meanAbuseDays: number;
  /** Mean days a bad hosting tenant keeps its /24 (exponential): its addresses abuse, on and off, all that time. */
  meanTenantDays: number;
  activeAtStart: number;
  /** Abuse attempts per hour from one active abusive IP (spread over workspaces by their size). */
  attacksPerHour: number;

  /** Workspaces and their relative sizes (traffic shares are these over their sum). */
  workspaceSizes: number[];
  /** Chance a workspace notices an attempt aimed at it, and the median hours before it reports (log-normal). */
  detectRate: number;
  medianReportDelayHours: number;
  /** Share of reports with a wrong outcome code, and of noticed abuse answered with a bad rating instead of a report. */
  wrongCodeRate: number;
  ratingInsteadRate: number;
  /** Share of reports kept private to the workspace. */
  privateRate: number;
  /** Benign visits per IP and hour, the chance one is wrongly reported, and the chance it earns a good rating. */
  benignVisitsPerHour: number;
  falsePositiveRate: number;
  goodRatingRate: number;
  /** One careless workspace: its false-positive rate is this many times the others'. */
  carelessFactor: number;
  /** One hostile workspace reports this many IPs of one benign /24 and this many of one benign AS, at this day. */
  hostileSubnetIps: number;
  hostileAsnIps: number;
  hostileDay: number;

  /** Feeds: share of active hosting abusers listed, of bad hosting subnets listed as /24, of compromised hosts listed;
   *  benign IPs wrongly listed per 1,000 entries; hours between refreshes; the feeds' weights. */
  feedHostingCoverage: number;
  feedSubnetCoverage: number;
  feedResidentialCoverage: number;
  feedFalseListingsPerMille: number;
  feedRefreshHours: number;
  /** Hours an abuser must have been active before a feed lists it. */
  feedLagHours: number;
  feedWeights: number[];

  /** Sampled IPs per publication (each IP is sampled once in a run), and own reports probed for latency. */
  samplesPerPublication: number;
  latencyProbes: number;
};

export const DEFAULT_PARAMS: Readonly<WorldParams> = Object.freeze({
  seed: 1,
  weeks: 2,
  warmupDays: 3,
  tickMinutes: 10,
  truthHorizonDays: 1,
  reportHorizonDays: 7,
  benignIps: 15_000,
  hostingAses: 6,
  badSubnetsPerHostingAs: 3,
  badSubnetDensity: 0.2,
  benignHostingIps: 1_500,
  compromisedResidentialIps: 300,
  sharedAbusiveIps: 60,
  meanAbuseDays: 5,
  meanTenantDays: 20,
  activeAtStart: 0.3,
  attacksPerHour: 0.25,
  workspaceSizes: [30, 18, 12, 9, 7, 5, 4, 3],
  detectRate: 0.5,
  medianReportDelayHours: 6,
  wrongCodeRate: 0.1,
  ratingInsteadRate: 0.15,
  privateRate: 0.25,
  benignVisitsPerHour: 0.05,
  falsePositiveRate: 0.0005,
  goodRatingRate: 0.002,
  carelessFactor: 20,
  hostileSubnetIps: 200,
  hostileAsnIps: 400,
  hostileDay: 5,
  feedHostingCoverage: 0.4,
  feedSubnetCoverage: 0.5,
  feedResidentialCoverage: 0.2,
  feedFalseListingsPerMille: 10,
  feedRefreshHours: 24,
  feedLagHours: 12,
  feedWeights: [0.8, 0.6],
  samplesPerPublication: 40,
  latencyProbes: 40,
});

/** A small world that runs end to end in seconds (the integration test; CI runs only this one). */
export const SMALL_WORLD: Partial<WorldParams> = Object.freeze({
  weeks: 0.5,
  warmupDays: 1.5,
  benignIps: 3_000,
  hostingAses: 4,
  badSubnetsPerHostingAs: 3,
  benignHostingIps: 400,
  compromisedResidentialIps: 80,
  sharedAbusiveIps: 20,
  workspaceSizes: [10, 6, 4],
  hostileSubnetIps: 150,
  hostileAsnIps: 200,
  hostileDay: 2,
  samplesPerPublication: 30,
  latencyProbes: 10,
});

/** The smallest world that still has every part (a bad block, a compromised host, a hostile reporter, feeds): what
 *  the integration tests run on both backends, in seconds. Its numbers are too few to hold the targets. */
export const TEST_WORLD: Partial<WorldParams> = Object.freeze({
  weeks: 1 / 7,
  warmupDays: 0.5,
  tickMinutes: 30,
  reportHorizonDays: 2,
  benignIps: 800,
  hostingAses: 2,
  badSubnetsPerHostingAs: 2,
  benignHostingIps: 150,
  compromisedResidentialIps: 40,
  sharedAbusiveIps: 10,
  activeAtStart: 0.6,
  attacksPerHour: 0.5,
  workspaceSizes: [10, 6, 4],
  hostileSubnetIps: 100,
  hostileAsnIps: 100,
  hostileDay: 0.25,
  feedRefreshHours: 6,
  samplesPerPublication: 60,
  latencyProbes: 8,
});

/**
 * Named parameter sets the sweep runs (`npm run evaluate:sweep -- --sets default,persistent,noisy`): a model change
 * is kept only when it holds on every one of them, over several seeds. They differ from the default where a model
 * could be tuned to it: how long abuse lasts, how densely it clusters, how many report it, how often reporters err.
 */
export const PARAMETER_SETS: Readonly<Record<string, Partial<WorldParams>>> = Object.freeze({
  default: {},
  /** Abuse that lasts three times longer, in sparser blocks, seen by fewer and slower reporters. */
  persistent: {
    meanAbuseDays: 15,
    badSubnetDensity: 0.1,
    detectRate: 0.3,
    medianReportDelayHours: 12,
    benignIps: 10_000,
    workspaceSizes: [20, 10, 5, 5, 3],
  },
  /** Short bursts of abuse in denser blocks over more hosting ASes, and reporters that err three times as often. */
  noisy: {
    meanAbuseDays: 2,
    hostingAses: 10,
    badSubnetDensity: 0.35,
    compromisedResidentialIps: 500,
    benignIps: 20_000,
    falsePositiveRate: 0.0015,
    wrongCodeRate: 0.2,
    carelessFactor: 40,
    feedFalseListingsPerMille: 30,
  },
});

/** `--name value` flags over the defaults; unknown names and values that are not numbers are refused. */
export function parseParams(argv: readonly string[], base: Partial<WorldParams> = {}): WorldParams {
  const out: WorldParams = { ...DEFAULT_PARAMS, ...base };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (!flag.startsWith('--')) throw new Error(`unexpected argument ${JSON.stringify(flag)}`);
    const name = flag.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()) as keyof WorldParams;
    if (!(name in DEFAULT_PARAMS)) throw new Error(`unknown parameter ${flag}`);
    const raw = argv[++i];
    if (raw === undefined) throw new Error(`${flag} needs a value`);
    const values = raw.split(',').map(Number);
    if (values.some((v) => !Number.isFinite(v) || v < 0)) throw new Error(`${flag} must be a non-negative number`);
    (out as Record<string, unknown>)[name] = Array.isArray(DEFAULT_PARAMS[name]) ? values : values[0];
  }
  if (out.workspaceSizes.length < 3) throw new Error('--workspace-sizes needs at least 3 workspaces');
  return out;
}
