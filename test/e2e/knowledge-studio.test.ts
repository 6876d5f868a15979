import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UiHarness } from './ui-harness.ts';

describe('the knowledge studio', () => {
  let ui: UiHarness;

  before(async () => {
    ui = await UiHarness.start();
  });
  after(async () => {
    await ui.dispose();
  });

  it('creates a base, adds an entry, lists it and finds it in the test drawer', async () => {
    const page = await ui.open('#/knowledge');
    await page.getByText('No knowledge bases yet').waitFor();
    await ui.screenshot(page, 'knowledge-empty');

    await page.getByRole('button', { name: 'New base' }).click();
    const baseDialog = page.getByRole('dialog', { name: 'New knowledge base' });
    await baseDialog.getByLabel('Name').fill('Support answers');
    await baseDialog.getByLabel('Description').fill('Questions customers ask about orders and shipping.');
    await baseDialog.getByRole('button', { name: 'Create base' }).click();
    await page.getByRole('heading', { name: 'Support answers' }).waitFor();
    await page.getByText('No entries yet').waitFor();

    await page.keyboard.press('n');
    const entryDialog = page.getByRole('dialog', { name: 'Add entry' });
    await entryDialog.getByLabel('Subject').fill('Shipping');
    await entryDialog.getByLabel('Question').fill('How long does delivery take?');
    await entryDialog.getByLabel('Answer').fill('Orders arrive within 3 to 5 working days inside the EU.');
    await entryDialog.getByLabel('Keywords').fill('delivery, shipping time');
    await entryDialog.getByRole('button', { name: 'Add entry' }).click();
    await entryDialog.waitFor({ state: 'detached' });

    const row = page.getByRole('table').getByText('How long does delivery take?');
    await row.waitFor();
    assert.match((await page.getByTestId('entries-total').textContent()) ?? '', /of 1$/);
    assert.equal(await page.getByRole('complementary', { name: 'Subjects' }).getByRole('button', { name: /Shipping/ }).count(), 1);
    await ui.screenshot(page, 'knowledge-base');

    // A duplicate question comes back as the API's error text, beside the form.
    await page.getByRole('button', { name: 'Add entry' }).first().click();
    const again = page.getByRole('dialog', { name: 'Add entry' });
    await again.getByLabel('Subject').fill('Shipping');
    await again.getByLabel('Question').fill('How long does delivery take?');
    await again.getByLabel('Answer').fill('Something else entirely.');
    await again.getByRole('button', { name: 'Add entry' }).click();
    await again.getByRole('alert').waitFor();
    assert.ok(((await again.getByRole('alert').textContent()) ?? '').length > 0);
    await page.keyboard.press('Escape');

    await page.getByRole('button', { name: 'Test' }).click();
    const drawer = page.getByRole('complementary', { name: 'Test this base' });
    await drawer.getByLabel('Test query').fill('when will my parcel arrive');
    await drawer.getByRole('button', { name: 'Search' }).click();
    const hit = drawer.getByRole('listitem').filter({ hasText: 'How long does delivery take?' });
    await hit.waitFor();
    const score = Number(await hit.getByTestId('hit-score').textContent());
    assert.ok(score > 0, `a positive score, got ${score}`);
    await ui.screenshot(page, 'knowledge-test-drawer');

    // An ask that matches nothing explains itself and lands in the unanswered list.
    await drawer.getByRole('tab', { name: 'Ask' }).click();
    await drawer.getByLabel('Test query').fill('zebra migration patterns in antarctica');
    await drawer.getByRole('button', { name: 'Ask' }).click();
    await drawer.getByTestId('ask-note').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Unanswered' }).click();
    const unanswered = page.getByRole('dialog', { name: 'Unanswered questions' });
    await unanswered.getByText('zebra migration patterns in antarctica').waitFor();
    await unanswered.getByRole('button', { name: 'Dismiss' }).click();
    await unanswered.getByText('Nothing unanswered').waitFor();
    await page.keyboard.press('Escape');
  });

  it('imports a CSV and reports what landed', async () => {
    const page = await ui.open('#/knowledge');
    await page.getByRole('link', { name: /Support answers/ }).waitFor();
    await ui.screenshot(page, 'knowledge-bases');
    await page.getByRole('link', { name: /Support answers/ }).click();
    await page.getByRole('button', { name: 'Import CSV' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import entries from CSV' });
    const csv = [
      'subject,question,answer,altQuestions,keywords',
      'Returns,Can I return an item?,Yes: within 30 days with the receipt.,How do returns work? | Return policy?,returns | refund',
      'Payments,Which cards do you accept?,"Visa, Mastercard and Amex.",,cards',
      'Shipping,How long does delivery take?,Duplicate of an existing question.,,',
    ].join('\n');
    await dialog.getByLabel('CSV file').setInputFiles({ name: 'faq.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await dialog.getByText('3 rows ready to import').waitFor();
    await dialog.getByRole('button', { name: /Import 3 rows/ }).click();
    const result = await dialog.getByTestId('import-result').textContent();
    assert.match(result ?? '', /2 inserted, 1 duplicates/);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('table').getByText('Can I return an item?').waitFor();
    await page.getByRole('complementary', { name: 'Subjects' }).getByRole('button', { name: /Returns/ }).click();
    await page.getByText('Which cards do you accept?').waitFor({ state: 'detached' });
    assert.match((await page.getByTestId('entries-total').textContent()) ?? '', /of 1$/);
  });

  it('offers keep or replace when an add lands as a near-duplicate draft, and archives in bulk', async () => {
    const page = await ui.open('#/knowledge');
    await page.getByRole('link', { name: /Support answers/ }).click();
    await page.getByRole('table').getByText('How long does delivery take?').waitFor();

    await page.getByRole('button', { name: 'Add entry' }).first().click();
    const dialog = page.getByRole('dialog', { name: /entry/ });
    await dialog.getByLabel('Subject').fill('Shipping');
    await dialog.getByLabel('Question').fill('How long does the delivery take?');
    await dialog.getByLabel('Answer').fill('Delivery takes 2 to 4 working days inside the EU.');
    await dialog.getByRole('button', { name: 'Add entry' }).click();
    const conflict = dialog.getByTestId('conflict-panel');
    await conflict.waitFor();
    await ui.screenshot(page, 'knowledge-conflict');
    await conflict.getByRole('button', { name: 'Replace the older entry' }).click();
    await dialog.getByText('replaced the older one').waitFor();
    await page.keyboard.press('Escape');

    // The older entry is archived now; the new one is active.
    await page.getByLabel('Status').selectOption('archived');
    await page.getByRole('table').getByText('How long does delivery take?').waitFor();
    await page.getByLabel('Status').selectOption('active');
    await page.getByRole('table').getByText('How long does the delivery take?').waitFor();

    await page.getByLabel('Select all on this page').check();
    const bar = page.getByRole('toolbar', { name: 'Bulk actions' });
    await bar.getByRole('button', { name: 'Archive' }).click();
    await page.getByText('No entries yet').or(page.getByText('Nothing matches')).waitFor();
    await page.getByLabel('Status').selectOption('archived');
    assert.match((await page.getByTestId('entries-total').textContent()) ?? '', /of [1-9]/);
  });
});
