// Loaded into the e2e server process only (node --import): every character captcha the server
// draws is also written, with its answer, to DATA_DIR/captcha-outbox.jsonl, as SMS codes and
// mails go to their outboxes. A browser test reads the answer there instead of the picture.
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const svgCaptcha = require('svg-captcha');
const create = svgCaptcha.create;
const outbox = join(process.env.DATA_DIR ?? '.', 'captcha-outbox.jsonl');

svgCaptcha.create = (options) => {
  const captcha = create.call(svgCaptcha, options);
  appendFileSync(outbox, `${JSON.stringify({ at: new Date().toISOString(), text: captcha.text })}\n`);
  return captcha;
};
