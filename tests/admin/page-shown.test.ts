import { describe, expect, it } from 'vitest';
import { markPageShown, onPageShown } from '../../src/admin/layout/pageShown.js';

// Issue 19.2: the sidebar's menu waits for the opened page (the cold load's first moments go to it).
describe('first page shown (what the page does not need waits for it)', () => {
  it('tells its listeners once, when the first page is shown, and later ones at once', () => {
    const calls: string[] = [];
    const stopA = onPageShown(() => calls.push('a'));
    const stopB = onPageShown(() => calls.push('b'));
    stopB();
    expect(calls).toEqual([]);
    markPageShown();
    markPageShown();
    expect(calls).toEqual(['a']);
    onPageShown(() => calls.push('c'));
    expect(calls).toEqual(['a', 'c']);
    stopA();
  });
});
