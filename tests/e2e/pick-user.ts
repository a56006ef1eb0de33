import type { Locator, Page } from 'playwright-core';

/**
 * Picks a user on an org-user tree select (UserTreeSelect of the workflow screens): the tenant's
 * tree grows with every check and its list is virtual, so the name is typed first, then the
 * option's title clicked (not its row).
 */
export async function pickUser(page: Page, select: Locator, username: string, popup: string): Promise<void> {
  await select.click();
  await page.keyboard.type(username);
  const exact = new RegExp(`^(${username}|.*（${username}）)$`);
  await page
    .locator(`.${popup}:not(.ant-select-dropdown-hidden) .ant-select-tree-title`)
    .filter({ hasText: exact })
    .first()
    .click();
}
