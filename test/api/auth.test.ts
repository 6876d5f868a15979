import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestHearth } from '../helpers/hearth.ts';

interface ErrorBody {
  success: boolean;
  error: string;
  code?: string;
  details?: { required?: string; scopes?: string[]; fieldErrors?: Record<string, string[]> };
}

function assertUnauthorized(res: { status: number; body: unknown }): void {
  assert.equal(res.status, 401);
  const body = res.body as ErrorBody;
  assert.deepEqual(Object.keys(body).sort(), ['error', 'success']);
  assert.equal(body.success, false);
  assert.ok(body.error.length > 0);
}

describe('authentication', () => {
  let hearth: TestHearth;
  before(async () => {
    hearth = await TestHearth.start();
  });
  after(() => hearth.stop());

  it('accepts a token as Authorization: Bearer and as X-API-Key', async () => {
    const token = hearth.token();
    const bearer = await hearth.request('GET', '/api/ai/knowledge/me', { token });
    assert.equal(bearer.status, 200);
    const apiKey = await hearth.request('GET', '/api/ai/simple-flow/me', { headers: { 'x-api-key': token } });
    assert.equal(apiKey.status, 200);
    assert.equal(apiKey.body.orgId, hearth.defaultWorkspaceId);
  });

  it('answers 401 with only success and error for a missing, unknown, malformed, revoked or expired token', async () => {
    assertUnauthorized(await hearth.request('GET', '/api/ai/knowledge/me'));
    assertUnauthorized(await hearth.request('GET', '/api/ai/knowledge/me', { token: 'hth_AAAAAAAAAAAA_' + 'B'.repeat(40) }));
    assertUnauthorized(await hearth.request('GET', '/api/ai/knowledge/me', { token: 'not-a-token' }));

    const real = hearth.token();
    const tampered = real.slice(0, -1) + (real.endsWith('A') ? 'B' : 'A');
    assertUnauthorized(await hearth.request('GET', '/api/ai/knowledge/me', { token: tampered }));

    const ws = hearth.defaultWorkspaceId;
    const created = hearth.engine.identity.createToken({ workspaceId: ws, userId: hearth.engine.identity.resolveUser(ws).id, name: 'r', access: 'read', resources: ['knowledge'] });
    assert.equal((await hearth.request('GET', '/api/ai/knowledge/me', { token: created.secret })).status, 200);
    hearth.engine.identity.revokeToken(ws, created.token.id);
    assertUnauthorized(await hearth.request('GET', '/api/ai/knowledge/me', { token: created.secret }));

    const expired = hearth.token({ expiresAt: new Date(Date.now() - 1000).toISOString() });
    assertUnauthorized(await hearth.request('GET', '/api/ai/simple-flow/me', { token: expired }));
    const future = hearth.token({ expiresAt: new Date(Date.now() + 3600_000).toISOString() });
    assert.equal((await hearth.request('GET', '/api/ai/simple-flow/me', { token: future })).status, 200);
  });

  it('reports every identity field of section 2.1 on both families', async () => {
    const token = hearth.token({ access: 'read', resources: ['knowledge', 'workflows'] });
    const k = await hearth.request('GET', '/api/ai/knowledge/me', { token });
    assert.deepEqual(Object.keys(k.body).sort(), ['access', 'base', 'knowledgeBaseId', 'orgId', 'scopes', 'tokenKind', 'userId']);
    assert.equal(k.body.tokenKind, 'token');
    assert.equal(k.body.access, 'read');
    assert.equal(k.body.base, '/bases');
    assert.equal(k.body.knowledgeBaseId, null);
    assert.deepEqual(k.body.scopes, ['knowledge:read', 'workflows:read']);
    const f = await hearth.request('GET', '/api/ai/simple-flow/me', { token });
    assert.deepEqual(Object.keys(f.body).sort(), ['access', 'flowId', 'orgId', 'scopes', 'tokenKind', 'userId']);
    assert.equal(f.body.flowId, null);
    assert.equal(f.body.access, 'read');

    const writer = hearth.token({ access: 'write', resources: ['workflows'] });
    const fw = await hearth.request('GET', '/api/ai/simple-flow/me', { token: writer });
    assert.equal(fw.body.access, 'write');
    assert.deepEqual(fw.body.scopes, ['workflows:read', 'workflows:write']);
  });

  it('refuses a call without the scope with 403 INSUFFICIENT_SCOPE naming the required and held scopes', async () => {
    const knowledgeOnly = hearth.token({ access: 'read', resources: ['knowledge'] });
    const res = await hearth.request<ErrorBody>('GET', '/api/ai/simple-flow/me', { token: knowledgeOnly });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'INSUFFICIENT_SCOPE');
    assert.equal(res.body.details?.required, 'workflows:read');
    assert.deepEqual(res.body.details?.scopes, ['knowledge:read']);

    const write = await hearth.request<ErrorBody>('POST', '/api/ai/knowledge/bases', { token: knowledgeOnly, body: { name: 'x' } });
    assert.equal(write.status, 403);
    assert.equal(write.body.code, 'INSUFFICIENT_SCOPE');
    assert.equal(write.body.details?.required, 'knowledge:write');
  });

  it('keeps a token inside its own workspace', async () => {
    const other = hearth.engine.identity.createWorkspace('Other');
    const otherToken = hearth.token({ workspaceId: other.id });
    const mine = hearth.token();
    const base = await hearth.request('POST', '/api/ai/knowledge/bases', { token: mine, body: { name: 'Mine' } });
    assert.equal(base.status, 201);

    const me = await hearth.request('GET', '/api/ai/knowledge/me', { token: otherToken });
    assert.equal(me.body.orgId, other.id);
    const list = await hearth.request<unknown[]>('GET', '/api/ai/knowledge/bases', { token: otherToken });
    assert.deepEqual(list.body, []);
    const get = await hearth.request<ErrorBody>('GET', `/api/ai/knowledge/bases/${String(base.body.id)}`, { token: otherToken });
    assert.equal(get.status, 404);
    assert.equal(get.body.code, 'NOT_FOUND');
    const patch = await hearth.request('PATCH', `/api/ai/knowledge/bases/${String(base.body.id)}`, { token: otherToken, body: { name: 'Stolen' } });
    assert.equal(patch.status, 404);
    const still = await hearth.request('GET', `/api/ai/knowledge/bases/${String(base.body.id)}`, { token: mine });
    assert.equal(still.body.name, 'Mine');
  });

  it('answers 404 NOT_FOUND for ids that are not UUIDs', async () => {
    const token = hearth.token();
    const res = await hearth.request<ErrorBody>('GET', '/api/ai/knowledge/bases/not-a-uuid', { token });
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'NOT_FOUND');
    assert.equal(res.body.success, false);
  });

  it('limits a legacy per-base key to its own base and reports it in /me', async () => {
    const token = hearth.token();
    const own = await hearth.request('POST', '/api/ai/knowledge/bases', { token, body: { name: 'Own' } });
    const other = await hearth.request('POST', '/api/ai/knowledge/bases', { token, body: { name: 'Other' } });
    const key = hearth.token({ access: 'write', knowledgeBaseId: String(own.body.id) });

    const me = await hearth.request('GET', '/api/ai/knowledge/me', { token: key });
    assert.equal(me.body.knowledgeBaseId, own.body.id);
    assert.deepEqual(me.body.scopes, ['knowledge:read', 'knowledge:write']);

    assert.equal((await hearth.request('GET', `/api/ai/knowledge/bases/${String(own.body.id)}`, { token: key })).status, 200);
    assert.equal((await hearth.request('PATCH', `/api/ai/knowledge/bases/${String(own.body.id)}`, { token: key, body: { description: 'ok' } })).status, 200);
    const denied = await hearth.request<ErrorBody>('GET', `/api/ai/knowledge/bases/${String(other.body.id)}`, { token: key });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, 'FORBIDDEN');
    const list = await hearth.request<Array<{ id: string }>>('GET', '/api/ai/knowledge/bases', { token: key });
    assert.deepEqual(list.body.map((b) => b.id), [own.body.id]);
    const create = await hearth.request<ErrorBody>('POST', '/api/ai/knowledge/bases', { token: key, body: { name: 'New' } });
    assert.equal(create.status, 403);
    assert.equal(create.body.code, 'FORBIDDEN');
    const flows = await hearth.request<ErrorBody>('GET', '/api/ai/simple-flow/me', { token: key });
    assert.equal(flows.status, 403);
  });

  it('reports a legacy per-flow key in /me and keeps it off other flows', async () => {
    const flowId = '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
    const key = hearth.token({ access: 'write', flowId });
    const me = await hearth.request('GET', '/api/ai/simple-flow/me', { token: key });
    assert.equal(me.status, 200);
    assert.equal(me.body.flowId, flowId);
    assert.deepEqual(me.body.scopes, ['workflows:read', 'workflows:write']);
    const knowledge = await hearth.request<ErrorBody>('GET', '/api/ai/knowledge/me', { token: key });
    assert.equal(knowledge.status, 403);
  });
});

describe('request bodies and failures', () => {
  let hearth: TestHearth;
  const logged: string[] = [];
  before(async () => {
    hearth = await TestHearth.start({
      logger: { info: () => {}, warn: () => {}, error: (m, f) => logged.push(m + JSON.stringify(f ?? {})) },
    });
  });
  after(() => hearth.stop());

  it('answers malformed JSON with 400 BAD_REQUEST in the error shape', async () => {
    const res = await hearth.request<ErrorBody>('POST', '/api/ai/knowledge/bases', { token: hearth.token(), rawBody: '{"name": ' });
    assert.equal(res.status, 400);
    assert.equal(res.body.success, false);
    assert.equal(res.body.code, 'BAD_REQUEST');
    assert.ok(res.body.details?.fieldErrors?.body);
  });

  it('answers an oversized body with 400 BAD_REQUEST in the error shape', async () => {
    const huge = JSON.stringify({ name: 'x', description: 'y'.repeat(33 * 1024 * 1024) });
    const res = await hearth.request<ErrorBody>('POST', '/api/ai/knowledge/bases', { token: hearth.token(), rawBody: huge });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'BAD_REQUEST');
    assert.equal(res.body.success, false);
  });

  it('names the wrong field in fieldErrors', async () => {
    const res = await hearth.request<ErrorBody>('POST', '/api/ai/knowledge/bases', { token: hearth.token(), body: { name: '', reviewBeforeIndex: 'yes' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'BAD_REQUEST');
    assert.ok(res.body.details?.fieldErrors?.name);
    assert.ok(res.body.details?.fieldErrors?.reviewBeforeIndex);
  });

  it('answers 404 in the error shape for an unknown route', async () => {
    const res = await hearth.request<ErrorBody>('GET', '/api/ai/knowledge/nope', { token: hearth.token() });
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'NOT_FOUND');
  });

  it('answers a failure inside the service with 500, logs the stack and leaks nothing', async () => {
    const token = hearth.token();
    hearth.engine.db.exec('DROP TABLE knowledge_bases');
    const res = await hearth.request<ErrorBody>('GET', '/api/ai/knowledge/bases', { token });
    assert.equal(res.status, 500);
    assert.equal(res.body.success, false);
    assert.doesNotMatch(res.text, /knowledge_bases|at \w+ \(|\.ts:/);
    assert.ok(logged.some((line) => line.includes('knowledge_bases') && line.includes('stack')));
  });
});

describe('app session and restarts', () => {
  it('lets only the app session delete a base; tokens get 403 FORBIDDEN', async () => {
    const hearth = await TestHearth.start();
    try {
      const token = hearth.token();
      const base = await hearth.request('POST', '/api/ai/knowledge/bases', { token, body: { name: 'Doomed' } });
      const path = `/api/ai/knowledge/bases/${String(base.body.id)}`;
      const refused = await hearth.request<ErrorBody>('DELETE', path, { token });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'FORBIDDEN');
      assert.equal((await hearth.request('GET', path, { token })).status, 200);
      const deleted = await hearth.request('DELETE', path, { token: hearth.appSession });
      assert.equal(deleted.status, 200);
      assert.equal((await hearth.request('GET', path, { token })).status, 404);
    } finally {
      await hearth.stop();
    }
  });

  it('keeps tokens working after a restart; the app session is renewed', async () => {
    const hearth = await TestHearth.start();
    try {
      const token = hearth.token();
      const oldSession = hearth.appSession;
      await hearth.restart();
      assert.equal((await hearth.request('GET', '/api/ai/knowledge/me', { token })).status, 200);
      assert.equal((await hearth.request('GET', '/api/ai/knowledge/me', { token: oldSession })).status, 401);
      const app = await hearth.request('GET', '/api/ai/knowledge/me', { token: hearth.appSession });
      assert.equal(app.status, 200);
      assert.equal(app.body.tokenKind, 'app');
    } finally {
      await hearth.stop();
    }
  });
});
