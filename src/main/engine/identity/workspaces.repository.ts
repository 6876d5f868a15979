import type { Db } from '../storage/database.ts';
import type { User, Workspace } from './identity.types.ts';

interface WorkspaceRow {
  id: string;
  name: string;
  credit_balance: number;
  created_at: string;
}

interface UserRow {
  id: string;
  workspace_id: string;
  name: string;
  created_at: string;
}

const toWorkspace = (r: WorkspaceRow): Workspace => ({ id: r.id, name: r.name, creditBalance: r.credit_balance, createdAt: r.created_at });
const toUser = (r: UserRow): User => ({ id: r.id, workspaceId: r.workspace_id, name: r.name, createdAt: r.created_at });

export class WorkspacesRepository {
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  insert(workspace: Workspace): void {
    this.db
      .prepare('INSERT INTO workspaces (id, name, credit_balance, created_at) VALUES (?, ?, ?, ?)')
      .run(workspace.id, workspace.name, workspace.creditBalance, workspace.createdAt);
  }

  list(): Workspace[] {
    return (this.db.prepare('SELECT * FROM workspaces ORDER BY created_at, rowid').all() as WorkspaceRow[]).map(toWorkspace);
  }

  get(id: string): Workspace | undefined {
    const row = this.db.prepare('SELECT * FROM workspaces WHERE id = ?').get(id) as WorkspaceRow | undefined;
    return row && toWorkspace(row);
  }

  insertUser(user: User): void {
    this.db.prepare('INSERT INTO users (id, workspace_id, name, created_at) VALUES (?, ?, ?, ?)').run(user.id, user.workspaceId, user.name, user.createdAt);
  }

  getUser(id: string): User | undefined {
    const row = this.db.prepare('SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined;
    return row && toUser(row);
  }

  listUsers(workspaceId: string): User[] {
    return (this.db.prepare('SELECT * FROM users WHERE workspace_id = ? ORDER BY created_at, rowid').all(workspaceId) as UserRow[]).map(toUser);
  }
}
