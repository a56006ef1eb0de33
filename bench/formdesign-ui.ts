/**
 * The form designer with 100 fields (issue 14): the time from a drop (the mouse released over
 * the canvas), a reorder (an item dragged above another) and a keystroke in the property panel
 * to the end of the frame that shows it. Same probe as the generated-form keystrokes of ui.ts.
 */
import type { Page } from 'playwright-core';

const FIELDS = 100;
const DRAFT_KEY = 'formDesigner.draft';

/** A designed form of 100 text fields, put where the designer keeps its draft. */
function hundredFieldDraft(): string {
  const properties: Record<string, unknown> = { id: { type: 'integer', title: 'ID', readOnly: true } };
  for (let n = 1; n <= FIELDS; n += 1) {
    properties[`f${String(n).padStart(3, '0')}`] = { type: 'string', title: `Field ${n}`, maxLength: 64 };
  }
  return JSON.stringify({
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'Bench design',
    type: 'object',
    'x-entity': { api: 'form/benchdesign', table: 'form_benchdesign', key: 'id', label: 'id' },
    additionalProperties: false,
    properties,
  });
}

async function installProbe(page: Page): Promise<void> {
  // A string, not a function: the TypeScript loader would wrap named functions in a helper the page lacks.
  await page.evaluate(`(() => {
    const samples = [];
    window.designSamples = samples;
    const probe = (event) =>
      requestAnimationFrame(() => setTimeout(() => samples.push(performance.now() - event.timeStamp), 0));
    document.addEventListener('pointerup', probe, true);
    document.addEventListener('keydown', probe, true);
  })()`);
}

async function takeSamples(page: Page): Promise<number[]> {
  return page.evaluate(() => {
    const samples = (window as unknown as { designSamples: number[] }).designSamples;
    return samples.splice(0, samples.length);
  });
}

async function dragTo(
  page: Page,
  from: { x: number; y: number },
  to: { x: number; y: number },
): Promise<void> {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x + 8, from.y + 8, { steps: 3 });
  await page.mouse.move(to.x, to.y, { steps: 8 });
  await page.waitForTimeout(60);
}

async function centre(page: Page, testId: string): Promise<{ x: number; y: number }> {
  const box = await page.getByTestId(testId).first().boundingBox();
  if (!box) throw new Error(`${testId} is not on screen`);
  return { x: box.x + box.width / 2, y: box.y + Math.min(box.height / 2, 12) };
}

export interface DesignerTimes {
  drops: number[];
  reorders: number[];
  edits: number[];
}

/** Opens /formdesign on a 100-field draft and measures drops, reorders and property edits. */
export async function measureDesigner(page: Page, baseUrl: string, rounds: number): Promise<DesignerTimes> {
  await page.goto(`${baseUrl}/admin/workbench`);
  await page.evaluate(
    ([key, text]) => window.localStorage.setItem(key as string, text as string),
    [DRAFT_KEY, hundredFieldDraft()],
  );
  await page.goto(`${baseUrl}/admin/formdesign`);
  await page.getByTestId('node-f100').waitFor();
  await installProbe(page);
  const drops: number[] = [];
  const reorders: number[] = [];
  const edits: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    // a drop from the palette onto the top of the canvas's third field
    await dragTo(page, await centre(page, 'palette-text'), await centre(page, 'node-f002'));
    await takeSamples(page);
    await page.mouse.up();
    await page.waitForTimeout(150);
    drops.push(...(await takeSamples(page)));
    // a reorder: the field dropped goes below the next one
    const handle = page.locator('.formdesign-node.is-selected .formdesign-handle').first();
    const box = await handle.boundingBox();
    if (!box) throw new Error('no selected item after a drop');
    const target = await centre(page, 'node-f003');
    await dragTo(
      page,
      { x: box.x + box.width / 2, y: box.y + box.height / 2 },
      { x: target.x, y: target.y + 20 },
    );
    await takeSamples(page);
    await page.mouse.up();
    await page.waitForTimeout(150);
    reorders.push(...(await takeSamples(page)));
  }
  // editing a property of the selected field: one sample per key
  await page.getByTestId('node-f050').click();
  const title = page.getByTestId('prop-title-en');
  await title.click();
  await takeSamples(page);
  for (let key = 0; key < rounds * 3; key += 1) {
    await page.keyboard.press(String.fromCharCode(97 + (key % 26)));
    await page.waitForTimeout(110);
  }
  edits.push(...(await takeSamples(page)));
  await page.evaluate((key) => window.localStorage.removeItem(key), DRAFT_KEY);
  return { drops, reorders, edits };
}
