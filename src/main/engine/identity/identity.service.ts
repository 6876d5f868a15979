import { randomBytes, timingSafeEqual } from 'node:crypto';
import { userInfo } from 'node:os';
import type { Clock } from '../shared/clock.ts';
import { ApiError, fieldError, notFound, unauthorized } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import type { Db } from '../storage/database.ts';
import { ALL_SCOPES, RESOURCES, scopesFor, type Access, type Principal, type Resource, type TokenRecord, type User, type Workspace } from './identity.types.ts';
import type { SecretBox } from './secret-box.ts';
import { TokensRepository } from './tokens.repository.ts';
import { WorkspacesRepository } from './workspaces.repository.ts';

/** Credits a new workspace starts with, so a fresh install can ask and extract at once. */
export const STARTING_CREDITS = 1000;

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const TOKEN_PATTERN = /^hth_([A-Za-z0-9]{12})_([A-Za-z0-9]{40})$/;
const APP_SESSION_PREFIX = 'hths_';

function randomBase62(length: number): string {
  // 248 is the largest multiple of 62 below 256: rejecting larger bytes keeps every character equally likely.
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export interface CreateTokenInput {
  workspaceId: string;
  userId: string;
  name: string;
  access: Access;
  resources: Resource[];
  expiresAt?: string | null;
  knowledgeBaseId?: string | null;
  flowId?: string | null;
}

export interface CreatedToken {
  token: TokenRecord;
  secret: string;
}

export class IdentityService {
  private readonly workspaces: WorkspacesRepository;
  private readonly tokens: TokensRepository;
  /** The UI's session secret; lives only in memory, renewed at every start. */
  readonly appSessionSecret = APP_SESSION_PREFIX + randomBase62(43);

  private readonly db: Db;
  private readonly box: SecretBox;
  private readonly clock: Clock;

  constructor(db: Db, box: SecretBox, clock: Clock) {
    this.db = db;
    this.box = box;
    this.clock = clock;
    this.workspaces = new WorkspacesRepository(db);
    this.tokens = new TokensRepository(db);
  }

  /** A new data folder gets a workspace and a user, so nothing needs --workspace or --user. */
  ensureDefaults(): { workspace: Workspace; user: User } {
    return this.db
      .transaction(() => {
        const existing = this.workspaces.list()[0];
        if (existing) {
          const user = this.workspaces.listUsers(existing.id)[0] ?? this.createUser(existing.id, 'Owner');
          return { workspace: existing, user };
        }
        const workspace = this.createWorkspace('Personal');
        const user = this.workspaces.listUsers(workspace.id)[0];
        return { workspace, user };
      })
      .immediate();
  }

  createWorkspace(name: string): Workspace {
    const workspace: Workspace = { id: newId(), name, creditBalance: STARTING_CREDITS, createdAt: this.clock.now().toISOString() };
    this.db.transaction(() => {
      this.workspaces.insert(workspace);
      this.createUser(workspace.id, safeUserName());
    })();
    return workspace;
  }

  listWorkspaces(): Workspace[] {
    return this.workspaces.list();
  }

  /** Finds a workspace by id or exact name; the default one when none is given. */
  resolveWorkspace(idOrName?: string): Workspace {
    if (!idOrName) return this.ensureDefaults().workspace;
    const all = this.workspaces.list();
    const found = all.find((w) => w.id === idOrName) ?? all.find((w) => w.name === idOrName);
    if (!found) throw notFound(`Workspace "${idOrName}"`);
    return found;
  }

  createUser(workspaceId: string, name: string): User {
    if (!this.workspaces.get(workspaceId)) throw notFound(`Workspace ${workspaceId}`);
    const user: User = { id: newId(), workspaceId, name, createdAt: this.clock.now().toISOString() };
    this.workspaces.insertUser(user);
    return user;
  }

  listUsers(workspaceId: string): User[] {
    return this.workspaces.listUsers(workspaceId);
  }

  /** The user a command acts as: the given one (which must belong to the workspace) or its first user. */
  resolveUser(workspaceId: string, userId?: string): User {
    if (userId) {
      const user = this.workspaces.getUser(userId);
      if (!user || user.workspaceId !== workspaceId) throw notFound(`User ${userId} in workspace ${workspaceId}`);
      return user;
    }
    const first = this.workspaces.listUsers(workspaceId)[0];
    return first ?? this.createUser(workspaceId, safeUserName());
  }

  createToken(input: CreateTokenInput): CreatedToken {
    if (!input.name.trim()) throw fieldError('name', 'A token needs a name.');
    if (input.resources.length === 0) throw fieldError('resources', 'Name at least one resource: knowledge, workflows.');
    for (const r of input.resources) if (!RESOURCES.includes(r)) throw fieldError('resources', `Unknown resource "${r}".`);
    if (input.knowledgeBaseId && input.flowId) throw fieldError('base', 'A legacy key is tied to one base or one flow, not both.');
    const resources: Resource[] = input.knowledgeBaseId ? ['knowledge'] : input.flowId ? ['workflows'] : [...new Set(input.resources)];
    if (input.expiresAt && Number.isNaN(Date.parse(input.expiresAt))) throw fieldError('expires', 'Expected an ISO 8601 date.');
    this.resolveUser(input.workspaceId, input.userId);

    const publicId = randomBase62(12);
    const secret = `hth_${publicId}_${randomBase62(40)}`;
    const record: TokenRecord = {
      id: newId(),
      workspaceId: input.workspaceId,
      userId: input.userId,
      name: input.name.trim(),
      access: input.access,
      resources,
      scopes: scopesFor(input.access, resources),
      knowledgeBaseId: input.knowledgeBaseId ?? null,
      flowId: input.flowId ?? null,
      expiresAt: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
      revokedAt: null,
      lastUsedAt: null,
      createdAt: this.clock.now().toISOString(),
    };
    this.tokens.insert({ record, publicId, secretHash: this.box.hash(secret), secretBox: this.box.seal(secret) });
    return { token: record, secret };
  }

  listTokens(workspaceId: string): TokenRecord[] {
    return this.tokens.list(workspaceId);
  }

  revealToken(workspaceId: string, tokenId: string): CreatedToken {
    const stored = this.tokens.byId(workspaceId, tokenId);
    if (!stored) throw notFound(`Token ${tokenId}`);
    return { token: stored.record, secret: this.box.open(stored.secretBox) };
  }

  revokeToken(workspaceId: string, tokenId: string): TokenRecord {
    const stored = this.tokens.byId(workspaceId, tokenId);
    if (!stored) throw notFound(`Token ${tokenId}`);
    this.tokens.markRevoked(tokenId, this.clock.now().toISOString());
    return this.tokens.byId(workspaceId, tokenId)!.record;
  }

  /** Turns a presented secret into a principal, or answers 401. */
  authenticate(presented: string | undefined): Principal {
    if (!presented) throw unauthorized('Missing API token. Send it as "Authorization: Bearer <token>" or "X-API-Key: <token>".');
    if (presented.startsWith(APP_SESSION_PREFIX)) return this.authenticateAppSession(presented);

    const match = TOKEN_PATTERN.exec(presented);
    const stored = match ? this.tokens.byPublicId(match[1]) : undefined;
    if (!stored || !this.box.matches(presented, stored.secretHash)) throw unauthorized('Invalid API token.');
    const token = stored.record;
    if (token.revokedAt) throw unauthorized('This API token has been revoked.');
    const now = this.clock.now();
    if (token.expiresAt && Date.parse(token.expiresAt) <= now.getTime()) throw unauthorized('This API token has expired.');
    if (!token.lastUsedAt || now.getTime() - Date.parse(token.lastUsedAt) > 60_000) this.tokens.markUsed(token.id, now.toISOString());
    return {
      kind: 'token',
      workspaceId: token.workspaceId,
      userId: token.userId,
      scopes: token.scopes,
      tokenId: token.id,
      knowledgeBaseId: token.knowledgeBaseId,
      flowId: token.flowId,
    };
  }

  private authenticateAppSession(presented: string): Principal {
    const expected = Buffer.from(this.appSessionSecret);
    const given = Buffer.from(presented);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw unauthorized('Invalid app session.');
    const { workspace, user } = this.ensureDefaults();
    return { kind: 'app', workspaceId: workspace.id, userId: user.id, scopes: [...ALL_SCOPES], tokenId: null, knowledgeBaseId: null, flowId: null };
  }

  /** Throws unless the workspace exists; used by commands that take --workspace. */
  requireWorkspace(id: string): Workspace {
    const ws = this.workspaces.get(id);
    if (!ws) throw new ApiError(404, 'NOT_FOUND', `Workspace ${id} not found`);
    return ws;
  }
}

function safeUserName(): string {
  try {
    return userInfo().username || 'Owner';
  } catch {
    return 'Owner';
  }
}
