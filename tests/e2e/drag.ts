import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';

/** Attempts at a drag before it counts as failed, and how long each waits for the target. */
const ATTEMPTS = 3;
const ATTEMPT_MS = 5_000;

/**
 * Drags with the mouse in small steps, as dnd-kit's pointer sensor needs, and drops at the end of
 * the target (a container's free space below its items) or at its top (before an item).
 *
 * The button is let go only once the target shows it is the drop target (`is-over`): dnd-kit
 * measures the drop zones after the drag starts, and on a loaded machine the last move can come
 * before they are measured, when a release would drop nowhere. Until the target says so, the
 * pointer is nudged by a pixel, which makes dnd-kit look again. A press that started no drag at
 * all (on a loaded machine it can come while the last drop is still settling, and the browser
 * selects text instead) is given up with Escape, which also cancels a drag that did start, and
 * tried again from the source.
 */
export async function dragTo(
  page: Page,
  source: Locator,
  target: Locator,
  at: 'end' | 'top' = 'end',
): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    if (await dragOnce(page, source, target, at)) return;
    await page.keyboard.press('Escape');
    await page.mouse.up();
    await page.evaluate(() => window.getSelection()?.removeAllRanges());
    assert.ok(
      attempt < ATTEMPTS,
      `the drag target never showed it was under the pointer (${ATTEMPTS} drags)`,
    );
    await page.waitForTimeout(500);
  }
}

/** One drag: true when the target showed it was under the pointer and the button was let go. */
async function dragOnce(page: Page, source: Locator, target: Locator, at: 'end' | 'top'): Promise<boolean> {
  const from = await source.boundingBox();
  const to = await target.boundingBox();
  assert.ok(from && to, 'drag source and target are on screen');
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(from.x + from.width / 2 + 8, from.y + from.height / 2 + 8, { steps: 4 });
  const x = to.x + to.width / 2;
  const y = at === 'end' ? to.y + to.height - 12 : to.y + 6;
  await page.mouse.move(x, y, { steps: 12 });
  const deadline = Date.now() + ATTEMPT_MS;
  for (let nudge = 0; !(await isOver(target)); nudge += 1) {
    if (Date.now() > deadline) return false;
    await page.waitForTimeout(100);
    await page.mouse.move(x + (nudge % 2 === 0 ? 1 : 0), y);
  }
  await page.mouse.up();
  return true;
}

async function isOver(target: Locator): Promise<boolean> {
  return (await target.getAttribute('class'))?.split(/\s+/).includes('is-over') ?? false;
}
