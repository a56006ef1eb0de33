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
  const dropdown = await openedDropdown(trigger);
  await dropdown
    .locator('.ant-select-item-option')
    .and(trigger.page().getByTitle(title, { exact: true }))
    .click();
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
