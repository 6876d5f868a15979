import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { UiHarness } from './ui-harness.ts';

/** Drags from one node's output pin to another's input pin, as a person would. */
async function connect(page: Page, source: string, target: string): Promise<void> {
  // The canvas refits itself when nodes are added; let it settle before aiming.
  await page.waitForTimeout(300);
  const from = await page.getByTestId(`node-${source}`).locator('.react-flow__handle.source').first().boundingBox();
  const to = await page.getByTestId(`node-${target}`).locator('.react-flow__handle.target').boundingBox();
  assert.ok(from && to, 'both pins are on screen');
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 12 });
  await page.mouse.up();
}

describe('the workflows canvas', () => {
  let ui: UiHarness;

  before(async () => {
    ui = await UiHarness.start();
  });
  after(async () => {
    await ui.dispose();
  });

  it('builds a two-node flow on the canvas, runs it, and shows each node succeeding', async () => {
    const page = await ui.open('#/workflows');
    await page.getByText('No flows yet').waitFor();
    await page.getByLabel('New flow name').fill('Greeting');
    await page.getByRole('button', { name: 'New flow' }).click();
    await page.getByTestId('flow-canvas').waitFor();
    await page.getByText('An empty flow').waitFor();

    //   [node1 trigger] ──► [node2 output]   (the edge drawn by dragging)
    await page.getByTestId('palette-trigger').click();
    await page.getByTestId('node-node1').waitFor();
    await page.getByLabel('Close node settings').click();
    await page.getByTestId('palette-output').click();
    await page.getByTestId('node-node2').waitFor();
    assert.equal(await page.locator('.react-flow__edge').count(), 0, 'nothing was selected, so the output was added unconnected');

    await connect(page, 'node1', 'node2');
    await page.locator('.react-flow__edge').first().waitFor({ state: 'attached' });
    const edges = await ui.api<{ edges: { source: string; target: string }[] }>('GET', `/api/ai/simple-flow/flows/${flowIdFrom(page)}/edges`, ui.token());
    assert.deepEqual(
      edges.body.edges.map((e) => [e.source, e.target]),
      [['node1', 'node2']],
    );

    // The trigger's config form comes from its JSON Schema; sampleData is free JSON.
    await page.getByTestId('node-node1').click();
    const settings = page.getByRole('complementary', { name: 'Node settings' });
    await settings.getByLabel('Sample Data').fill('{ "name": "Ada" }');
    await settings.getByRole('button', { name: 'Save' }).click();
    await settings.getByText('Saved.').waitFor();

    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByTestId('execution-status').filter({ hasText: 'success' }).waitFor({ timeout: 15_000 });
    assert.equal(await page.getByTestId('node-node1').getAttribute('data-run-status'), 'success');
    assert.equal(await page.getByTestId('node-node2').getAttribute('data-run-status'), 'success');
    await page.getByRole('region', { name: 'Runs' }).getByText('"name": "Ada"').first().waitFor();
    await ui.screenshot(page, 'flow-canvas-run');
  });

  it('shows a node added over the API on the open canvas within seconds', async () => {
    const token = ui.token();
    //   [node1 trigger] ──► [node2 If] ──false──► [node3 output, added over the API]
    const created = await ui.api<{ id: string }>('POST', '/api/ai/simple-flow/flows', token, {
      name: 'Watched',
      nodes: [
        { type: 'trigger', position: { x: 0, y: 100 } },
        { type: 'condition', position: { x: 320, y: 100 } },
      ],
      edges: [{ source: 'node1', target: 'node2' }],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const page = await ui.open(`#/workflows/${created.body.id}`);
    await page.getByTestId('node-node2').waitFor();
    assert.equal(await page.getByTestId('node-node2').locator('.react-flow__handle.source').count(), 2, 'an If shows a true and a false pin');

    const added = await ui.api('POST', `/api/ai/simple-flow/flows/${created.body.id}/nodes`, token, {
      type: 'output',
      label: 'Added by a script',
      connectFrom: 'node2',
      connectFromHandle: 'false',
      position: { x: 640, y: 180 },
    });
    assert.equal(added.status, 201);
    const started = Date.now();
    await page.getByTestId('node-node3').getByText('Added by a script').waitFor({ timeout: 5000 });
    await page.getByTestId('rf__edge-e-node2-false-node3').waitFor({ state: 'attached', timeout: 5000 });
    assert.ok(Date.now() - started < 5000);
    await ui.screenshot(page, 'flow-canvas-live');

    await page.getByTestId('node-node3').click();
    await page.getByRole('complementary', { name: 'Node settings' }).getByRole('button', { name: 'Delete node' }).click();
    await page.getByTestId('node-node3').waitFor({ state: 'detached' });
    const graph = await ui.api<{ nodes: unknown[]; edges: unknown[] }>('GET', `/api/ai/simple-flow/flows/${created.body.id}/graph`, token);
    assert.equal(graph.body.nodes.length, 2);
    assert.equal(graph.body.edges.length, 1, 'the node took its edge with it');

    await page.getByRole('link', { name: 'Back to workflows' }).click();
    await page.getByRole('table', { name: 'Flows' }).getByText('Watched').waitFor();
    await page.getByRole('switch', { name: 'Active: Watched' }).click();
    await page.getByRole('switch', { name: 'Active: Watched', checked: true }).waitFor();
    const summary = await ui.api<{ active: boolean }>('GET', `/api/ai/simple-flow/flows/${created.body.id}`, token);
    assert.equal(summary.body.active, true);
    await ui.screenshot(page, 'flows-list');
  });
});

function flowIdFrom(page: Page): string {
  const match = /#\/workflows\/([0-9a-f-]{36})/.exec(page.url());
  assert.ok(match, `a flow id in ${page.url()}`);
  return match[1];
}
