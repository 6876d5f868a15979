export type Resource = 'knowledge' | 'workflows';
export type Access = 'read' | 'write';
export type Scope = 'knowledge:read' | 'knowledge:write' | 'workflows:read' | 'workflows:write';

export const RESOURCES: readonly Resource[] = ['knowledge', 'workflows'];

export interface Workspace {
  id: string;
  name: string;
  creditBalance: number;
  createdAt: string;
}

export interface User {
  id: string;
  workspaceId: string;
  name: string;
  createdAt: string;
}

export interface TokenRecord {
  id: string;
  workspaceId: string;
  userId: string;
  name: string;
  access: Access;
  resources: Resource[];
  scopes: Scope[];
  knowledgeBaseId: string | null;
  flowId: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
}

/**
 * Who is calling. A personal token, or the app's own session (the UI), which may
 * also do what tokens may not, such as deleting a base.
 */
export interface Principal {
  kind: 'token' | 'app';
  workspaceId: string;
  userId: string;
  scopes: Scope[];
  tokenId: string | null;
  knowledgeBaseId: string | null;
  flowId: string | null;
}

export function scopesFor(access: Access, resources: readonly Resource[]): Scope[] {
  const scopes: Scope[] = [];
  for (const resource of RESOURCES) {
    if (!resources.includes(resource)) continue;
    scopes.push(`${resource}:read`);
    if (access === 'write') scopes.push(`${resource}:write`);
  }
  return scopes;
}

export const ALL_SCOPES: Scope[] = scopesFor('write', RESOURCES);
