import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KnowledgeBase } from '../../src/main/engine/knowledge/knowledge.types.ts';
import { TestHearth } from '../helpers/hearth.ts';
import { addEntry, assertFieldError, assertStatus, K, OTHER_UUID } from '../helpers/knowledge.ts';

type BaseBody = KnowledgeBase;

const BASE_FIELDS = ['createdAt', 'defaultLanguage', 'description', 'embeddingModel', 'entryCount', 'id', 'indexing', 'lastIndexedAt', 'name', 'orgId', 'reviewBeforeIndex', 'sourceCount', 'updatedAt'];

describe('knowledge bases over HTTP', () => {
  let hearth: TestHearth;
  let token: string;
  before(async () => {
    hearth = await TestHearth.start();
    token = hearth.token();
  });
  after(() => hearth.stop());

  it('creates a base with every field of 2.2 and the defaults', async () => {
    const res = await hearth.request<BaseBody>('POST', `${K}/bases`, { token, body: { name: '  Support  ' } });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body).sort(), BASE_FIELDS);
    assert.equal(res.body.name, 'Support');
    assert.equal(res.body.orgId, hearth.defaultWorkspaceId);
    assert.equal(res.body.description, '');
    assert.equal(res.body.reviewBeforeIndex, false);
    assert.equal(res.body.defaultLanguage, null);
    assert.equal(res.body.entryCount, 0);
    assert.equal(res.body.sourceCount, 0);
    assert.equal(res.body.indexing, false);
    assert.ok(res.body.embeddingModel.length > 0);

    const full = await hearth.request<BaseBody>('POST', `${K}/bases`, { token, body: { name: 'Full', description: 'd'.repeat(2000), reviewBeforeIndex: true, defaultLanguage: 'de' } });
    assert.equal(full.status, 201);
    assert.equal(full.body.reviewBeforeIndex, true);
    assert.equal(full.body.defaultLanguage, 'de');
    assert.equal(full.body.description.length, 2000);
  });

  it('enforces the name and description bounds, naming the field', async () => {
    assertFieldError(await hearth.request('POST', `${K}/bases`, { token, body: {} }), 'name');
    assertFieldError(await hearth.request('POST', `${K}/bases`, { token, body: { name: '' } }), 'name');
    assertFieldError(await hearth.request('POST', `${K}/bases`, { token, body: { name: 'n'.repeat(121) } }), 'name');
    assert.equal((await hearth.request('POST', `${K}/bases`, { token, body: { name: 'n'.repeat(120) } })).status, 201);
    assertFieldError(await hearth.request('POST', `${K}/bases`, { token, body: { name: 'ok', description: 'd'.repeat(2001) } }), 'description');
    assertFieldError(await hearth.request('POST', `${K}/bases`, { token, body: { name: 'ok', reviewBeforeIndex: 'yes' } }), 'reviewBeforeIndex');
  });

  it('gets and patches a base; lists most recently updated first', async () => {
    const a = (await hearth.request<BaseBody>('POST', `${K}/bases`, { token, body: { name: 'Order A' } })).body;
    await new Promise((r) => setTimeout(r, 5));
    const b = (await hearth.request<BaseBody>('POST', `${K}/bases`, { token, body: { name: 'Order B' } })).body;
    let list = (await hearth.request<BaseBody[]>('GET', `${K}/bases`, { token })).body;
    assert.ok(list.findIndex((x) => x.id === b.id) < list.findIndex((x) => x.id === a.id));

    await new Promise((r) => setTimeout(r, 5));
    const patched = await hearth.request<BaseBody>('PATCH', `${K}/bases/${a.id}`, { token, body: { description: 'Now first', reviewBeforeIndex: true, defaultLanguage: null } });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.description, 'Now first');
    assert.equal(patched.body.reviewBeforeIndex, true);
    assert.equal(patched.body.name, 'Order A');
    assert.ok(patched.body.updatedAt > a.updatedAt);
    list = (await hearth.request<BaseBody[]>('GET', `${K}/bases`, { token })).body;
    assert.equal(list[0].id, a.id);

    const got = await hearth.request<BaseBody>('GET', `${K}/bases/${a.id}`, { token });
    assert.deepEqual(got.body, patched.body);
    assertFieldError(await hearth.request('PATCH', `${K}/bases/${a.id}`, { token, body: { name: '' } }), 'name');
    assertStatus(await hearth.request('PATCH', `${K}/bases/${OTHER_UUID}`, { token, body: { name: 'x' } }), 404, 'NOT_FOUND');
    assertStatus(await hearth.request('GET', `${K}/bases/${OTHER_UUID}`, { token }), 404, 'NOT_FOUND');
  });

  it('keeps entryCount and lastIndexedAt true as entries come and go', async () => {
    const base = (await hearth.request<BaseBody>('POST', `${K}/bases`, { token, body: { name: 'Counts' } })).body;
    const entry = await addEntry(hearth, token, base.id, { subject: 'Billing', question: 'How do I pay an invoice?', answer: 'Pay by card or bank transfer from the Billing page.' });
    let got = (await hearth.request<BaseBody>('GET', `${K}/bases/${base.id}`, { token })).body;
    assert.equal(got.entryCount, 1);
    assert.ok(got.lastIndexedAt);
    await hearth.request('DELETE', `${K}/bases/${base.id}/entries/${entry.id}`, { token });
    got = (await hearth.request<BaseBody>('GET', `${K}/bases/${base.id}`, { token })).body;
    assert.equal(got.entryCount, 0);
  });

  it('refuses the 51st base of a workspace with 400', async () => {
    const ws = hearth.engine.identity.createWorkspace('Crowded');
    const crowded = hearth.token({ workspaceId: ws.id });
    for (let i = 0; i < 50; i++) {
      assert.equal((await hearth.request('POST', `${K}/bases`, { token: crowded, body: { name: `Base ${i}` } })).status, 201);
    }
    const refused = await hearth.request('POST', `${K}/bases`, { token: crowded, body: { name: 'One too many' } });
    assertStatus(refused, 400, 'BAD_REQUEST');
    assert.equal((await hearth.request<BaseBody[]>('GET', `${K}/bases`, { token: crowded })).body.length, 50);
  });
});
