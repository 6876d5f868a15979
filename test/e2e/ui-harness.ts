import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { Engine } from '../../src/main/engine/engine.ts';
import { startServer, type RunningServer } from '../../src/main/engine/http/server.ts';
import { silentLogger } from '../../src/main/engine/shared/logger.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { PROJECT_ROOT, tempDataDir } from '../helpers/hearth.ts';

export const UI_DIR = join(PROJECT_ROOT, 'out', 'renderer');
/** Screenshots land here so a person (or a reviewer) can look at them. */
export const SCREENSHOT_DIR = process.env.HEARTH_SCREENSHOTS ?? join(PROJECT_ROOT, 'out', 'screenshots');

/** A real engine and server serving the built UI, and a headless Chromium signed in to it. */
export class UiHarness {
  readonly engine: Engine;
  readonly server: RunningServer;
  readonly browser: Browser;

  private constructor(engine: Engine, server: RunningServer, browser: Browser) {
    this.engine = engine;
    this.server = server;
    this.browser = browser;
  }

  static async start(): Promise<UiHarness> {
    assert.ok(existsSync(join(UI_DIR, 'index.html')), 'Build the UI first: npm run build');
    const engine = new Engine({ dataDir: tempDataDir(), logger: silentLogger });
    const server = await startServer(engine, { port: 0, uiDir: UI_DIR });
    const browser = await launchBrowser();
    return new UiHarness(engine, server, browser);
  }

  get url(): string {
    return this.server.url;
  }

  /** Opens the app at a hash route (`#/knowledge`), signed in with the app session. */
  async open(route = '#/knowledge'): Promise<Page> {
    const page = await this.browser.context.newPage();
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${this.url}/#session=${this.engine.identity.appSessionSecret}`);
    await page.getByTestId('workspace-id').waitFor();
    // A string, because this file is typed for Node (no DOM) and runs the code in the page.
    await page.evaluate(`window.location.hash = ${JSON.stringify(route)}`);
    return page;
  }

  /** A personal token, for edits made "elsewhere" over the API. */
  token(): string {
    const workspaceId = this.engine.identity.ensureDefaults().workspace.id;
    const userId = this.engine.identity.resolveUser(workspaceId).id;
    return this.engine.identity.createToken({ workspaceId, userId, name: 'e2e', access: 'write', resources: ['knowledge', 'workflows'], expiresAt: null, knowledgeBaseId: null, flowId: null }).secret;
  }

  async api<T = Record<string, unknown>>(method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(this.url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as T };
  }

  async screenshot(page: Page, name: string): Promise<string> {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const path = join(SCREENSHOT_DIR, `${name}.png`);
    // Finished transitions, so the picture shows the state the test just checked.
    await page.screenshot({ path, animations: 'disabled' });
    return path;
  }

  async dispose(): Promise<void> {
    await this.browser.close();
    await this.server.dispose();
    await this.engine.dispose();
  }
}
