import { mkdirSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchBrowser, runChecks, startServer, type Check, type E2eContext } from './support.js';

// Browser tests: the real server with its built front-ends, driven in Debian's Chromium.
// Every tests/e2e/*.e2e.ts exports checks(context); an optional argument filters files by name,
// a second one checks by name (`npm run test:e2e a11y keyboard`).
const here = fileURLToPath(new URL('.', import.meta.url));
const filter = process.argv[2];
const checkFilter = process.argv[3];
const files = readdirSync(here)
  .filter((file) => file.endsWith('.e2e.ts') && (!filter || file.includes(filter)))
  .sort();

// A promise a check started and did not await yet (a waitForRequest before a click that then
// failed) rejects later: that is told, and fails the run, but does not end it before the other checks.
let leftBehind = 0;
process.on('unhandledRejection', (reason) => {
  leftBehind += 1;
  console.log(
    `  ✗ a promise a check left behind was rejected: ${reason instanceof Error ? reason.message : String(reason)}`,
  );
});

const server = await startServer();
const browser = await launchBrowser();
const screenshots = 'test-results/e2e';
mkdirSync(screenshots, { recursive: true });
const context: E2eContext = { server, browser, screenshots };

const checks: Check[] = [];
for (const file of files) {
  const module = (await import(`./${file}`)) as { checks: (context: E2eContext) => Check[] };
  checks.push(
    ...module
      .checks(context)
      .filter((check) => !checkFilter || check.name.includes(checkFilter))
      .map((check) => ({ ...check, name: `${file.replace('.e2e.ts', '')}: ${check.name}` })),
  );
}
/** What every open page showed when a check failed: test-results/e2e/failed-<check>-<n>.png. */
const screenshotOpenPages = async (checkName: string): Promise<void> => {
  const slug = checkName.replace(/[^\w-]+/g, '-').slice(0, 80);
  const pages = browser.contexts().flatMap((open) => open.pages());
  for (const [index, page] of pages.entries())
    await page.screenshot({ path: `${screenshots}/failed-${slug}-${index + 1}.png`, timeout: 5_000 });
  if (pages.length > 0) console.log(`    screenshots: ${screenshots}/failed-${slug}-*.png`);
};
const retries = Number(process.env.E2E_RETRIES ?? 0);
const ok = await runChecks(
  checks,
  screenshotOpenPages,
  Number.isInteger(retries) && retries > 0 ? retries : 0,
);

await browser.close();
await server.stop();
process.exit(ok && leftBehind === 0 ? 0 : 1);
