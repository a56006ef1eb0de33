// One-time codes live with the shared store (lib/store/codes.ts); the accounts room reads them here too.
export * from '../../lib/store/codes.js';
