#!/usr/bin/env node
// Merges a partial translation file into locales/{zh,tw,en}.json under a lock, so that several
// people (or scripts) can add keys at the same time without losing each other's writes.
// Usage: node scripts/locales-merge.mjs partial.json   where partial.json is {"zh": {...}, "tw": {...}, "en": {...}}
import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const lockPath = `${root}locales/.merge.lock`;
const partial = JSON.parse(readFileSync(process.argv[2], 'utf8'));

function deepMerge(target, source) {
  for (const [key, value] of Object.entries(source)) {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      target[key] = deepMerge(target[key] && typeof target[key] === 'object' ? target[key] : {}, value);
    } else {
      target[key] = value;
    }
  }
  return target;
}

function acquire() {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    try {
      closeSync(openSync(lockPath, 'wx'));
      return;
    } catch {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    }
  }
  throw new Error(`could not lock ${lockPath}`);
}

acquire();
try {
  for (const language of ['zh', 'tw', 'en']) {
    if (!partial[language]) throw new Error(`the partial file has no "${language}" section`);
    const path = `${root}locales/${language}.json`;
    const merged = deepMerge(JSON.parse(readFileSync(path, 'utf8')), partial[language]);
    writeFileSync(path, `${JSON.stringify(merged, null, 2)}\n`);
  }
} finally {
  rmSync(lockPath, { force: true });
}
console.log('merged', process.argv[2]);
