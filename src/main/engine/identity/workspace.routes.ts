import { defineRoute, type AnyRoute } from '../http/route.ts';

// The app frame shows which workspace it is in and who is signed in; scripts have GET /me for ids.
export const workspaceRoutes: AnyRoute[] = [
  defineRoute({
    method: 'GET',
    family: 'app',
    path: '/workspace',
    scope: 'knowledge:read',
    handler: ({ engine, principal }) => {
      const workspace = engine.identity.requireWorkspace(principal.workspaceId);
      const user = engine.identity.resolveUser(principal.workspaceId, principal.userId);
      return { id: workspace.id, name: workspace.name, creditBalance: engine.credits.balance(workspace.id), user: { id: user.id, name: user.name } };
    },
  }),
];
