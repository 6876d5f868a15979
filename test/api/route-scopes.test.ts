import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FAMILY_PREFIX } from '../../src/main/engine/http/route.ts';
import { allRoutes } from '../../src/main/engine/http/routes.ts';
import type { Resource } from '../../src/main/engine/identity/identity.types.ts';
import { TestHearth } from '../helpers/hearth.ts';

const SOME_UUID = '0b9f4a52-6a43-4d2e-9c1f-2f3a4b5c6d7e';

function concretePath(path: string): string {
  return path.replace(/:(\w+)/g, (_m, name: string) => (name.toLowerCase().endsWith('id') && name !== 'nodeId' ? SOME_UUID : 'node1'));
}

/** The contract's rule (section 5): reads (GET, search, ask) need read scope, everything else write. */
function expectedAccess(method: string, path: string): 'read' | 'write' {
  return method === 'GET' || /\/(search|ask)$/.test(path) ? 'read' : 'write';
}

describe('route table', () => {
  let hearth: TestHearth;
  before(async () => {
    hearth = await TestHearth.start();
  });
  after(() => hearth.stop());

  const routes = allRoutes();

  it('declares a scope on every route that follows the read/write rule of its family', () => {
    assert.ok(routes.length > 0);
    for (const route of routes) {
      const [resource, access] = route.scope.split(':');
      if (route.family !== 'app') assert.equal(resource, route.family === 'knowledge' ? 'knowledge' : 'workflows', `${route.method} ${route.path}`);
      assert.equal(access, expectedAccess(route.method, route.path), `${route.method} ${route.path} declares ${route.scope}`);
    }
  });

  for (const route of routes) {
    it(`${route.method} ${FAMILY_PREFIX[route.family]}${route.path} refuses a token without ${route.scope}`, async () => {
      const [resource, access] = route.scope.split(':') as [Resource, 'read' | 'write'];
      // Lacking a read scope: a writer on the other resource only. Lacking a write scope: a reader on both.
      const token =
        access === 'read'
          ? hearth.token({ access: 'write', resources: [resource === 'knowledge' ? 'workflows' : 'knowledge'] })
          : hearth.token({ access: 'read', resources: ['knowledge', 'workflows'] });
      const res = await hearth.request<{ code: string; details: { required: string; scopes: string[] } }>(
        route.method,
        FAMILY_PREFIX[route.family] + concretePath(route.path),
        { token, body: route.method === 'GET' || route.method === 'DELETE' ? undefined : {} },
      );
      assert.equal(res.status, 403);
      assert.equal(res.body.code, 'INSUFFICIENT_SCOPE');
      assert.equal(res.body.details.required, route.scope);
      assert.ok(!res.body.details.scopes.includes(route.scope));
    });
  }

  for (const route of routes.filter((r) => r.appOnly)) {
    it(`${route.method} ${FAMILY_PREFIX[route.family]}${route.path} is app-only: 403 FORBIDDEN for a token with the scope`, async () => {
      const res = await hearth.request<{ code: string }>(route.method, FAMILY_PREFIX[route.family] + concretePath(route.path), { token: hearth.token(), body: route.method === 'GET' || route.method === 'DELETE' ? undefined : {} });
      assert.equal(res.status, 403);
      assert.equal(res.body.code, 'FORBIDDEN');
    });
  }
});
