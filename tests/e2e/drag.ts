import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';

/**
 * Drags with the mouse in small steps, as dnd-kit's pointer sensor needs, and drops at the end of
 * the target (a container's free space below its items) or at its top (before an item).
 *
 * The button is let go only once the target shows it is the drop target (`is-over`): dnd-kit
 * measures the drop zones after the drag starts, and on a loaded machine the last move can come
 * before they are measured, when a release would drop nowhere. Until the target says so, the
 * pointer is nudged by a pixel, which makes dnd-kit look again.
 */
export async function dragTo(
  page: Page,
  source: Locator,
  target: Locator,
  at: 'end' | 'top' = 'end',
): Promise<void> {
  const from = await source.boundingBox();
  const to = await target.boundingBox();
  assert.ok(from && to, 'drag source and target are on screen');
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(from.x + from.width / 2 + 8, from.y + from.height / 2 + 8, { steps: 4 });
  const x = to.x + to.width / 2;
  const y = at === 'end' ? to.y + to.height - 12 : to.y + 6;
  await page.mouse.move(x, y, { steps: 12 });
  const deadline = Date.now() + 10_000;
  for (let nudge = 0; !(await isOver(target)); nudge += 1) {
    assert.ok(Date.now() < deadline, 'the drag target never showed it was under the pointer');
    await page.waitForTimeout(100);
    await page.mouse.move(x + (nudge % 2 === 0 ? 1 : 0), y);
  }
  await page.mouse.up();
}

async function isOver(target: Locator): Promise<boolean> {
  return (await target.getAttribute('class'))?.split(/\s+/).includes('is-over') ?? false;
}
