import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isEnumType, isObjectType, printSchema, type GraphQLSchema } from 'graphql';
import { schema } from '../../src/transport/graphql/schema.ts';
import { workspaceSchema } from '../../src/transport/web/graphql/schema.ts';
import {
  EVENT_TYPE_CODES,
  OUTCOME_CODES,
  ROLE_CODES,
  SEVERITY_CODES,
  SHARE_POLICY_CODES,
  SUBJECT_KIND_CODES,
  VISIBILITY_CODES,
} from '../../src/domain/memory/vocabulary.ts';
import { RISK_LEVELS } from '../../src/domain/scoring/levels.ts';
import { COMMUNITY_LABELS, UNAVAILABLE_LABEL } from '../../src/domain/community/signal.ts';
import { DIMENSION_CODES } from '../../src/domain/network/types.ts';
import { KEY_STATUSES } from '../../src/domain/access/keys.ts';
import { SUBSCRIPTION_STATUSES } from '../../src/domain/billing/subscriptions.ts';

const SCHEMAS: Array<[file: string, served: string, s: GraphQLSchema]> = [
  ['schema.graphql', '/graphql (API keys)', schema],
  ['schema.workspace.graphql', '/workspace/graphql (sessions)', workspaceSchema],
];

describe.each(SCHEMAS)('%s — %s', (file, _served, s) => {
  it('matches the Pothos schema (run `npm run schema:print` after changing a type)', () => {
    const committed = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
    expect(committed).toBe(`${printSchema(s)}\n`);
  });

  it('documents every type and field', () => {
    const undocumented: string[] = [];
    for (const type of Object.values(s.getTypeMap())) {
      if (type.name.startsWith('__') || ['String', 'Int', 'Boolean', 'Float', 'ID'].includes(type.name)) continue;
      if (!type.description) undocumented.push(type.name);
      if ('getFields' in type) {
        for (const field of Object.values(type.getFields()))
          if (!field.description) undocumented.push(`${type.name}.${field.name}`);
      }
    }
    expect(undocumented).toEqual([]);
  });

  it('documents every argument and every enum value', () => {
    const undocumented: string[] = [];
    for (const type of Object.values(s.getTypeMap())) {
      if (type.name.startsWith('__')) continue;
      if (isEnumType(type))
        for (const v of type.getValues()) if (!v.description) undocumented.push(`${type.name}.${v.name}`);
      if (!isObjectType(type)) continue;
      for (const field of Object.values(type.getFields())) {
        for (const arg of field.args)
          if (!arg.description) undocumented.push(`${type.name}.${field.name}(${arg.name})`);
      }
    }
    expect(undocumented).toEqual([]);
  });
});

describe('closed vocabularies are GraphQL enums that read and write the wire values of REST', () => {
  const enumOf = (s: GraphQLSchema, name: string) => {
    const type = s.getType(name);
    if (!isEnumType(type)) throw new Error(`${name} is not an enum`);
    return type.getValues().map((v) => [v.name, v.value]);
  };
  const same = (codes: readonly string[]) => [...codes].sort().map((c) => [c, c]);

  it.each([
    ['OutcomeCode', OUTCOME_CODES],
    ['Severity', SEVERITY_CODES],
    ['SubjectRole', ROLE_CODES],
    ['SharePolicy', SHARE_POLICY_CODES],
    ['SubjectKind', SUBJECT_KIND_CODES],
    ['Visibility', VISIBILITY_CODES],
    ['EventType', EVENT_TYPE_CODES],
    ['RiskLevel', RISK_LEVELS.map((l) => l.level)],
    ['CommunityLabel', [...COMMUNITY_LABELS.map((l) => l.label), UNAVAILABLE_LABEL]],
    ['DimensionCode', DIMENSION_CODES],
  ] as Array<[string, readonly string[]]>)('%s (/graphql)', (name, codes) => {
    expect(enumOf(schema, name)).toEqual(same(codes));
  });

  it.each([
    ['ApiKeyStatus', KEY_STATUSES.map((k) => k.code)],
    ['SubscriptionStatus', SUBSCRIPTION_STATUSES.map((k) => k.code)],
  ] as Array<[string, string[]]>)('%s (/workspace/graphql)', (name, codes) => {
    expect(enumOf(workspaceSchema, name)).toEqual(same(codes));
  });

  it('types every field and argument that carries one of them (the report status stays a String: "" is its default)', () => {
    const typeOf = (path: string) => {
      const [type, field, arg] = path.split(/[.()]/).filter(Boolean) as [string, string, string?];
      const f = (
        schema.getType(type) as {
          getFields(): Record<string, { type: unknown; args?: Array<{ name: string; type: unknown }> }>;
        }
      ).getFields()[field]!;
      return String(arg ? f.args!.find((a) => a.name === arg)!.type : f.type);
    };
    expect(
      Object.fromEntries(
        [
          'Report.outcomeCode',
          'Report.severity',
          'Report.sharePolicy',
          'Report.eventType',
          'Report.requestedVisibility',
          'Report.effectiveVisibility',
          'Report.status',
          'ReportLink.role',
          'Subject.kind',
          'RiskSummary.level',
          'DimensionScore.level',
          'DimensionScore.code',
          'ScoreSummary.overallRiskLevel',
          'ScoreSummary.driver',
          'CommunitySignal.label',
          'Dimension.code',
          'OutcomeDayCount.outcomeCode',
          'ReportInput.kind',
          'ReportInput.outcomeCode',
          'ReportInput.severity',
          'ReportInput.sharePolicy',
          'ReportInput.visibility',
          'ReportInput.eventType',
          'ReportInput.status',
          'RelatedSubjectInput.role',
          'ReportFilter.outcomeCode',
          'Query.subject(kind)',
          'Query.topSubjects(kind)',
          'Query.dimensionEntity(code)',
        ].map((p) => [p, typeOf(p)]),
      ),
    ).toEqual({
      'Report.outcomeCode': 'OutcomeCode!',
      'Report.severity': 'Severity!',
      'Report.sharePolicy': 'SharePolicy!',
      'Report.eventType': 'EventType!',
      'Report.requestedVisibility': 'Visibility!',
      'Report.effectiveVisibility': 'Visibility!',
      'Report.status': 'String!',
      'ReportLink.role': 'SubjectRole!',
      'Subject.kind': 'SubjectKind!',
      'RiskSummary.level': 'RiskLevel!',
      'DimensionScore.level': 'RiskLevel',
      'DimensionScore.code': 'DimensionCode!',
      'ScoreSummary.overallRiskLevel': 'RiskLevel!',
      'ScoreSummary.driver': 'DimensionCode',
      'CommunitySignal.label': 'CommunityLabel!',
      'Dimension.code': 'DimensionCode!',
      'OutcomeDayCount.outcomeCode': 'OutcomeCode!',
      'ReportInput.kind': 'SubjectKind!',
      'ReportInput.outcomeCode': 'OutcomeCode!',
      'ReportInput.severity': 'Severity',
      'ReportInput.sharePolicy': 'SharePolicy',
      'ReportInput.visibility': 'Visibility',
      'ReportInput.eventType': 'EventType',
      'ReportInput.status': 'String',
      'RelatedSubjectInput.role': 'SubjectRole',
      'ReportFilter.outcomeCode': '[OutcomeCode!]',
      'Query.subject(kind)': 'SubjectKind!',
      'Query.topSubjects(kind)': 'SubjectKind',
      'Query.dimensionEntity(code)': 'DimensionCode!',
    });
  });
});

describe('the two schemas are separate', () => {
  const rootFields = (s: GraphQLSchema) =>
    [s.getQueryType(), s.getMutationType()].flatMap((t) =>
      t && isObjectType(t) ? Object.keys(t.getFields()).map((f) => `${t.name}.${f}`) : [],
    );

  /**
   * The override rule fields are named alike on purpose (a script written against one works on the other), each
   * served by its own schema's resolver: the API's authors the caller's key, the workspace's the signed-in account.
   */
  const NAMED_ALIKE = [
    'Mutation.createOverride',
    'Mutation.createWatch',
    'Mutation.createWebhookEndpoint',
    'Mutation.deleteWatch',
    'Mutation.deleteWebhookEndpoint',
    'Mutation.disableWebhookEndpoint',
    'Mutation.enableWebhookEndpoint',
    'Mutation.expireOverride',
    'Mutation.resendWebhookDelivery',
    'Mutation.rotateWebhookEndpointSecret',
    'Mutation.sendWebhookTestEvent',
    'Mutation.updateOverride',
    'Mutation.updateWatch',
    'Mutation.updateWebhookEndpoint',
    'Query.overrideAudit',
    'Query.overrides',
    'Query.watches',
    'Query.webhookDeliveries',
    'Query.webhookEndpoints',
  ];
  const fieldOf = (s: GraphQLSchema, name: string) => {
    const [type, field] = name.split('.') as [string, string];
    return (type === 'Query' ? s.getQueryType() : s.getMutationType())!.getFields()[field]!;
  };

  it('no root field of one is served by the other', () => {
    const api = new Set(rootFields(schema));
    const shared = rootFields(workspaceSchema).filter((f) => api.has(f));
    expect(shared.sort()).toEqual(NAMED_ALIKE);
    for (const name of NAMED_ALIKE)
      expect(fieldOf(workspaceSchema, name).resolve, name).not.toBe(fieldOf(schema, name).resolve);
    expect(rootFields(workspaceSchema)).toEqual(
      expect.arrayContaining(['Mutation.createApiKey', 'Mutation.revokeApiKey', 'Query.me', 'Query.csrfToken']),
    );
    expect(rootFields(schema)).toEqual(expect.arrayContaining(['Query.score', 'Mutation.rate']));
  });
});
