import assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import type axe from 'axe-core';

/**
 * Accessibility checks with axe-core inside the browser suite (issue 21: WCAG 2.1 AA).
 *
 * axe is put into the page through the driver's own evaluation (CDP Runtime.evaluate), which the
 * page's content security policy does not govern: the server keeps `script-src 'self'` exactly as
 * in production. An inline <script> (addScriptTag with content) would be refused by that policy.
 */

/** The WCAG 2.0 and 2.1 rules of levels A and AA. */
export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] as const;

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  nodes: { target: string; html: string; summary: string }[];
}

const checked: { label: string; violations: number }[] = [];

/** Pages (or page states) checked so far in this run, and how many of them had violations. */
export function axeTally(): { pages: number; failing: number; violations: number } {
  return {
    pages: checked.length,
    failing: checked.filter((entry) => entry.violations > 0).length,
    violations: checked.reduce((sum, entry) => sum + entry.violations, 0),
  };
}

/**
 * Waits until finite animations and transitions are over: axe measures colours as painted, and a
 * drawer or message fading in would read as low contrast. Endless ones (spinners) are ignored.
 */
async function settle(page: Page): Promise<void> {
  await page
    .waitForFunction(
      () =>
        document
          .getAnimations()
          .every(
            (animation) =>
              animation.playState !== 'running' || animation.effect?.getTiming().iterations === Infinity,
          ),
      undefined,
      { timeout: 5_000 },
    )
    .catch(() => undefined);
}

/** The WCAG A and AA violations axe finds in the page as it is now. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  let found = await axeOnce(page);
  // A control caught the instant its disabled state ends (or begins) reads in the disabled colours:
  // a colour-contrast finding that is gone a moment later. Only a finding that holds in each of
  // three looks, a second apart, is reported; a real one is there every time.
  for (let look = 2; look <= 3 && found.length > 0; look += 1) {
    await page.waitForTimeout(1000);
    found = stillFound(found, await axeOnce(page));
  }
  return found;
}

/** The violations (and their nodes) of `before` that `now` has too, with the nodes as they are now. */
function stillFound(before: readonly AxeViolation[], now: readonly AxeViolation[]): AxeViolation[] {
  const held: AxeViolation[] = [];
  for (const violation of now) {
    const earlier = before.find((candidate) => candidate.id === violation.id);
    if (!earlier) continue;
    const targets = new Set(earlier.nodes.map((node) => node.target));
    const nodes = violation.nodes.filter((node) => targets.has(node.target));
    if (nodes.length > 0) held.push({ ...violation, nodes });
  }
  return held;
}

async function axeOnce(page: Page): Promise<AxeViolation[]> {
  await settle(page);
  const hasAxe = await page.evaluate(() => 'axe' in window);
  if (!hasAxe) await page.evaluate(axeSource);
  return page.evaluate(async (tags: readonly string[]) => {
    const engine = (window as unknown as { axe: typeof axe }).axe;
    const result = await engine.run(document, {
      runOnly: { type: 'tag', values: [...tags] },
      resultTypes: ['violations'],
    });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact ?? 'unknown',
      help: violation.help,
      nodes: violation.nodes.map((node) => ({
        target: node.target.map(String).join(' '),
        html: node.html.slice(0, 200),
        summary: (node.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 300),
      })),
    }));
  }, AXE_TAGS);
}

/** A readable account of violations: rule, impact, node count and the first nodes. */
export function describeViolations(label: string, violations: readonly AxeViolation[]): string {
  const lines = [`${label}: ${violations.length} axe rule(s) violated`];
  for (const violation of violations) {
    lines.push(`  ${violation.id} (${violation.impact}, ${violation.nodes.length}): ${violation.help}`);
    for (const node of violation.nodes.slice(0, 3)) {
      lines.push(`    ${node.target}\n      ${node.html}\n      ${node.summary}`);
    }
  }
  return lines.join('\n');
}

/**
 * Fails with every WCAG 2.1 A/AA violation of the page as it is now (every e2e file may call it,
 * after its page has rendered what it is about).
 */
export async function expectNoAxeViolations(page: Page, label: string): Promise<void> {
  const violations = await axeViolations(page);
  // A11Y_REPORT=file.jsonl keeps every node of every violation, for fixing them in bulk.
  const report = process.env.A11Y_REPORT;
  if (report) appendFileSync(report, `${JSON.stringify({ label, violations })}\n`);
  checked.push({
    label,
    violations: violations.reduce((sum, violation) => sum + violation.nodes.length, 0),
  });
  assert.equal(violations.length, 0, describeViolations(label, violations));
}
