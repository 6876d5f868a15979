import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Engine } from '../../src/main/engine/engine.ts';
import { startServer, type RunningServer } from '../../src/main/engine/http/server.ts';
import { silentLogger } from '../../src/main/engine/shared/logger.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { PROJECT_ROOT, tempDataDir } from '../helpers/hearth.ts';

const UI_DIR = join(PROJECT_ROOT, 'out', 'renderer');

describe('the UI served by hearth serve', () => {
  let engine: Engine;
  let server: RunningServer;
  let browser: Browser;

  before(async () => {
    assert.ok(existsSync(join(UI_DIR, 'index.html')), 'Build the UI first: npm run build');
    engine = new Engine({ dataDir: tempDataDir(), logger: silentLogger });
    server = await startServer(engine, { port: 0, uiDir: UI_DIR });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser.close();
    await server.dispose();
    await engine.dispose();
  });

  it('signs in with the session link and shows the workspace', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${server.url}/#session=${engine.identity.appSessionSecret}`);
    const workspaceId = await page.getByTestId('workspace-id').textContent();
    assert.equal(workspaceId, engine.identity.ensureDefaults().workspace.id);
    await page.getByTestId('workspace-name').getByText(engine.identity.ensureDefaults().workspace.name).waitFor();
    assert.equal(new URL(page.url()).hash, '', 'the session leaves the address bar');
    await page.reload();
    assert.equal(await page.getByTestId('workspace-id').textContent(), workspaceId);
  });

  it('explains how to open the app without a session', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${server.url}/studio`);
    assert.match((await page.getByRole('alert').textContent()) ?? '', /hearth serve/);
  });
});
