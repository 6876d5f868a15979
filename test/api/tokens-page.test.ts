import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestHearth } from '../helpers/hearth.ts';

describe('the app API page for tokens', () => {
  let hearth: TestHearth;
  before(async () => {
    hearth = await TestHearth.start();
  });
  after(() => hearth.stop());

  it('creates a token that works, reveals it again, and revokes it', async () => {
    const app = hearth.appSession;
    const created = await hearth.request<{ id: string; token: string; scopes: string[]; state: string }>('POST', '/api/app/tokens', {
      token: app,
      body: { name: 'script', access: 'read', resources: ['workflows'] },
    });
    assert.equal(created.status, 201);
    assert.deepEqual(created.body.scopes, ['workflows:read']);
    assert.equal(created.body.state, 'active');
    assert.equal((await hearth.request('GET', '/api/ai/simple-flow/me', { token: created.body.token })).status, 200);

    const revealed = await hearth.request<{ token: string }>('POST', `/api/app/tokens/${created.body.id}/reveal`, { token: app });
    assert.equal(revealed.body.token, created.body.token);
    const list = await hearth.request<Array<{ id: string; token?: string }>>('GET', '/api/app/tokens', { token: app });
    const listed = list.body.find((t) => t.id === created.body.id);
    assert.ok(listed);
    assert.equal(listed.token, undefined, 'lists never carry secrets');

    const revoked = await hearth.request<{ state: string }>('POST', `/api/app/tokens/${created.body.id}/revoke`, { token: app });
    assert.equal(revoked.body.state, 'revoked');
    assert.equal((await hearth.request('GET', '/api/ai/simple-flow/me', { token: created.body.token })).status, 401);
  });

  it('validates the form and keeps tokens away from the page', async () => {
    const bad = await hearth.request<{ code: string; details: { fieldErrors: Record<string, string[]> } }>('POST', '/api/app/tokens', {
      token: hearth.appSession,
      body: { name: '', access: 'admin', resources: [] },
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(Object.keys(bad.body.details.fieldErrors).sort(), ['access', 'name', 'resources']);
    const byToken = await hearth.request<{ code: string }>('GET', '/api/app/tokens', { token: hearth.token() });
    assert.equal(byToken.status, 403);
    assert.equal(byToken.body.code, 'FORBIDDEN');
  });
});
