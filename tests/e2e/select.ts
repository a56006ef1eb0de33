import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';

/**
 * The dropdown of one antd select: the open select names its option list (aria-controls
 * `<id>_list`), and that list lives inside its own dropdown. A dropdown of another select that
 * is still closing (Escape starts a leave animation that keeps it in the page, visible, with
 * the same titles) is never taken.
 */
export async function dropdownOf(combobox: Locator): Promise<Locator> {
  const page = combobox.page();
  let listId: string | null = null;
  for (let tries = 0; listId === null; tries += 1) {
    listId = await combobox.getAttribute('aria-controls');
    if (listId !== null) break;
    if (tries > 300) throw new Error('the select opens its list (aria-controls)');
    await page.waitForTimeout(50);
  }
  return page.locator('.ant-select-dropdown').filter({ has: page.locator(`[id="${listId}"]`) });
}

/** Opens the select (`trigger`: its combobox input, or an element holding exactly one): its own dropdown. */
async function openedDropdown(trigger: Locator): Promise<Locator> {
  const isCombobox = (await trigger.getAttribute('role')) === 'combobox';
  const combobox = isCombobox ? trigger : trigger.getByRole('combobox');
  if ((await combobox.getAttribute('aria-expanded')) !== 'true') await trigger.click();
  return dropdownOf(combobox);
}

/**
 * Opens the select (`trigger`: its combobox input, or an element holding exactly one) and clicks
 * the option titled `title` in that select's own dropdown.
 */
export async function chooseOption(trigger: Locator, title: string): Promise<void> {
  const page = trigger.page();
  // a click on an option still sliding in can be lost, and a user would pick again: so is this,
  // three times at most (a later check of what was saved fails if all three are lost)
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    const dropdown = await openedDropdown(trigger);
    const option = dropdown.locator('.ant-select-item-option').and(page.getByTitle(title, { exact: true }));
    await option.waitFor();
    await untilStill(dropdown);
    await option.click();
    if (await becomesSelected(option)) return;
  }
}

/** Whether the option shows itself chosen within two seconds. */
async function becomesSelected(option: Locator): Promise<boolean> {
  for (let tries = 0; tries < 40; tries += 1) {
    const isSelected = await option.evaluate((element) =>
      element.classList.contains('ant-select-item-option-selected'),
    );
    if (isSelected) return true;
    await option.page().waitForTimeout(50);
  }
  return false;
}

/** As chooseOption, for an option found by the text it shows: the first one in the select's own dropdown. */
export async function chooseOptionShowing(trigger: Locator, text: string | RegExp): Promise<void> {
  const dropdown = await openedDropdown(trigger);
  await dropdown.locator('.ant-select-item-option').filter({ hasText: text }).first().click();
}

/** Waits until no select dropdown is shown (closing ones, still animating, included). */
export async function noDropdownShown(page: Page): Promise<void> {
  const shown = page.locator('.ant-select-dropdown:visible');
  for (let tries = 0; (await shown.count()) > 0; tries += 1) {
    if (tries > 200) throw new Error('the select dropdowns close');
    await page.waitForTimeout(50);
  }
}

/**
 * Waits until an overlay (a dialog, a dropdown) has finished its opening animation: a click on a
 * button of a dialog still zooming in, or on an option still sliding in, was lost on loaded
 * machines (the button showed the click, nothing happened).
 */
export async function untilStill(dialog: Locator): Promise<void> {
  await dialog.waitFor();
  for (let tries = 1; ; tries += 1) {
    const isMoving = await dialog.evaluate((element) =>
      element.getAnimations().some((animation) => animation.playState === 'running'),
    );
    if (!isMoving) return;
    assert.ok(tries < 200, 'the dialog stops moving');
    await dialog.page().waitForTimeout(50);
  }
}

/**
 * Clicks a dialog's button until the dialog closes. On a loaded machine a click on a confirm
 * dialog that had stopped moving was still lost once (the dialog stayed, its button idle). A click
 * the dialog took shows: it closes, or its button loads (antd ignores clicks while it does). Only a
 * lost click is given again, at most three times in all.
 */
export async function clickUntilClosed(dialog: Locator, button: Locator): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    await button.click();
    const isClosed = await dialog.waitFor({ state: 'hidden', timeout: 5_000 }).then(
      () => true,
      () => false,
    );
    if (isClosed) return;
    if (await button.evaluate((element) => element.classList.contains('ant-btn-loading'))) {
      await dialog.waitFor({ state: 'hidden' });
      return;
    }
    assert.ok(attempt < 3, 'the dialog takes the click');
  }
}
