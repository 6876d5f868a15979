import type { Db } from '../storage/database.ts';
import { scopesFor, type Access, type Resource, type TokenRecord } from './identity.types.ts';

interface TokenRow {
  id: string;
  public_id: string;
  workspace_id: string;
  user_id: string;
  name: string;
  access: Access;
  resources: string;
  knowledge_base_id: string | null;
  flow_id: string | null;
  secret_hash: Buffer;
  secret_box: Buffer;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  created_at: string;
}

export interface StoredToken {
  record: TokenRecord;
  secretHash: Buffer;
  secretBox: Buffer;
}

export interface NewTokenRow {
  record: TokenRecord;
  publicId: string;
  secretHash: Buffer;
  secretBox: Buffer;
}

function toStored(row: TokenRow): StoredToken {
  const resources = JSON.parse(row.resources) as Resource[];
  return {
    record: {
      id: row.id,
      workspaceId: row.workspace_id,
      userId: row.user_id,
      name: row.name,
      access: row.access,
      resources,
      scopes: scopesFor(row.access, resources),
      knowledgeBaseId: row.knowledge_base_id,
      flowId: row.flow_id,
      expiresAt: row.expires_at,
      revokedAt: row.revoked_at,
      lastUsedAt: row.last_used_at,
      createdAt: row.created_at,
    },
    secretHash: row.secret_hash,
    secretBox: row.secret_box,
  };
}

export class TokensRepository {
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  insert(token: NewTokenRow): void {
    const r = token.record;
    this.db
      .prepare(
        `INSERT INTO tokens (id, public_id, workspace_id, user_id, name, access, resources, knowledge_base_id, flow_id,
           secret_hash, secret_box, expires_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(r.id, token.publicId, r.workspaceId, r.userId, r.name, r.access, JSON.stringify(r.resources), r.knowledgeBaseId, r.flowId,
        token.secretHash, token.secretBox, r.expiresAt, r.createdAt);
  }

  byPublicId(publicId: string): StoredToken | undefined {
    const row = this.db.prepare('SELECT * FROM tokens WHERE public_id = ?').get(publicId) as TokenRow | undefined;
    return row && toStored(row);
  }

  byId(workspaceId: string, id: string): StoredToken | undefined {
    const row = this.db.prepare('SELECT * FROM tokens WHERE id = ? AND workspace_id = ?').get(id, workspaceId) as TokenRow | undefined;
    return row && toStored(row);
  }

  list(workspaceId: string): TokenRecord[] {
    const rows = this.db.prepare('SELECT * FROM tokens WHERE workspace_id = ? ORDER BY created_at, rowid').all(workspaceId) as TokenRow[];
    return rows.map((row) => toStored(row).record);
  }

  markRevoked(id: string, at: string): void {
    this.db.prepare('UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?').run(at, id);
  }

  markUsed(id: string, at: string): void {
    this.db.prepare('UPDATE tokens SET last_used_at = ? WHERE id = ?').run(at, id);
  }
}
