import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UiHarness } from './ui-harness.ts';

describe('the tokens page', () => {
  let ui: UiHarness;

  before(async () => {
    ui = await UiHarness.start();
  });
  after(async () => {
    await ui.dispose();
  });

  it('creates a token that works over the API, shows it once, and revokes it', async () => {
    const page = await ui.open('#/settings');
    page.on('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'New token' }).click();
    const form = page.getByRole('form', { name: 'New token' });
    await form.getByLabel('Token name').fill('nightly import');
    await form.getByLabel('Read and write').check();
    await form.getByLabel('Workflows').check();
    await form.getByRole('button', { name: 'Create token' }).click();

    const secret = (await page.getByTestId('token-secret').textContent()) ?? '';
    assert.ok(secret.length > 16, 'the secret is shown');
    const me = await ui.api<{ scopes: string[] }>('GET', '/api/ai/simple-flow/me', secret);
    assert.equal(me.status, 200);
    assert.deepEqual(me.body.scopes.sort(), ['knowledge:read', 'knowledge:write', 'workflows:read', 'workflows:write']);

    const row = page.getByTestId('token-row-nightly import');
    await row.getByText('active').waitFor();
    await ui.screenshot(page, 'settings-tokens');

    await page.getByRole('button', { name: 'Done' }).click();
    await row.getByRole('button', { name: 'Reveal' }).click();
    assert.equal(await page.getByTestId('token-secret').textContent(), secret);

    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByText('revoked').waitFor();
    assert.equal((await ui.api('GET', '/api/ai/knowledge/me', secret)).status, 401);
  });

  it('shows the API error by the field when the form is wrong', async () => {
    const page = await ui.open('#/settings');
    await page.getByRole('button', { name: 'New token' }).click();
    const form = page.getByRole('form', { name: 'New token' });
    await form.getByLabel('Token name').fill('nothing chosen');
    await form.getByLabel('Knowledge bases').uncheck();
    await form.getByRole('button', { name: 'Create token' }).click();
    await form.getByRole('alert').waitFor();
    assert.match((await form.locator('.field-error').first().textContent()) ?? '', /resource/i);
  });
});
