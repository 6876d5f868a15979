import type { Principal } from '../identity/identity.types.ts';
import { defineRoute, type AnyRoute } from './route.ts';

function accessFor(principal: Principal, resource: 'knowledge' | 'workflows'): 'read' | 'write' | null {
  if (principal.scopes.includes(`${resource}:write`)) return 'write';
  if (principal.scopes.includes(`${resource}:read`)) return 'read';
  return null;
}

function tokenKind(principal: Principal): string {
  if (principal.kind === 'app') return 'app';
  return principal.knowledgeBaseId || principal.flowId ? 'legacy-key' : 'token';
}

export const meRoutes: AnyRoute[] = [
  defineRoute({
    method: 'GET',
    family: 'knowledge',
    path: '/me',
    scope: 'knowledge:read',
    handler: ({ principal }) => ({
      userId: principal.userId,
      orgId: principal.workspaceId,
      tokenKind: tokenKind(principal),
      access: accessFor(principal, 'knowledge'),
      scopes: principal.scopes,
      knowledgeBaseId: principal.knowledgeBaseId,
      base: '/bases',
    }),
  }),
  defineRoute({
    method: 'GET',
    family: 'workflows',
    path: '/me',
    scope: 'workflows:read',
    handler: ({ principal }) => ({
      userId: principal.userId,
      orgId: principal.workspaceId,
      tokenKind: tokenKind(principal),
      access: accessFor(principal, 'workflows'),
      scopes: principal.scopes,
      flowId: principal.flowId,
    }),
  }),
];
