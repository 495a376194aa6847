import { builder } from '../builder.ts';
import { viewerOf } from '../../http/request-context.ts';

type WorkspaceShape = { name: string; tier: string };
type ApiKeyShape = { name: string; prefix: string };

const WorkspaceInfo = builder.objectRef<WorkspaceShape>('WorkspaceInfo').implement({
  description: 'The workspace the calling API key belongs to.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Workspace name.' }),
    tier: t.exposeString('tier', { description: 'API subscription tier code.' }),
  }),
});

export const ApiKeyInfo = builder.objectRef<ApiKeyShape>('ApiKeyInfo').implement({
  description: 'The calling API key (never its secret).',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Label chosen for the key.' }),
    prefix: t.exposeString('prefix', { description: 'Leading, non-secret part of the key.' }),
  }),
});

const ViewerType = builder.objectRef<{ workspace: WorkspaceShape; apiKey: ApiKeyShape }>('Viewer').implement({
  description: 'Who is calling.',
  fields: (t) => ({
    workspace: t.field({ type: WorkspaceInfo, description: "The caller's workspace.", resolve: (v) => v.workspace }),
    apiKey: t.field({ type: ApiKeyInfo, description: 'The key used for this request.', resolve: (v) => v.apiKey }),
  }),
});

builder.queryField('viewer', (t) =>
  t.field({
    type: ViewerType,
    description: 'The calling workspace and API key.',
    resolve: (_root, _args, ctx) => {
      const v = viewerOf(ctx);
      return { workspace: { name: v.workspaceName, tier: v.tier }, apiKey: { name: v.keyName, prefix: v.keyPrefix } };
    },
  }),
);
