import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkTemplate, compileTemplate, TemplateError } from '../../generators/engine.js';

/**
 * Templates are user text: the known handlebars server-side template injection payloads
 * (constructor and prototype walks, the CVE-2019-19919 / RuoYi-style "string.sub.apply" chain)
 * must neither run code nor reach an object's prototype.
 */
const marker = join(tmpdir(), `ecobid-ssti-${process.pid}`);
const probe = `globalThis.__ecobidPwned = 1; require('fs').writeFileSync(${JSON.stringify(marker)}, 'x'); return 1`;

const PAYLOADS: Record<string, string> = {
  'string.sub.apply chain (CVE-2019-19919)': `{{#with "s" as |string|}}
  {{#with "e"}}
    {{#with split as |conslist|}}
      {{this.pop}}
      {{this.push (lookup string.sub "constructor")}}
      {{this.pop}}
      {{#with string.split as |codelist|}}
        {{this.pop}}
        {{this.push "${probe.replace(/"/g, '\\"')}"}}
        {{this.pop}}
        {{#each conslist}}
          {{#with (string.sub.apply 0 codelist)}}
            {{this}}
          {{/with}}
        {{/each}}
      {{/with}}
    {{/with}}
  {{/with}}
{{/with}}`,
  'lookup constructor chain': `{{#with (lookup (lookup this "constructor") "constructor") as |F|}}{{F "${probe.replace(/"/g, '\\"')}"}}{{/with}}`,
  'constructor.constructor call': `{{constructor.constructor "${probe.replace(/"/g, '\\"')}"}}`,
  'constructor property read': `[{{constructor}}][{{constructor.name}}][{{this.constructor.constructor}}]`,
  '__proto__ walk': `[{{__proto__}}][{{__proto__.constructor}}][{{lookup this "__proto__"}}]`,
  '__defineGetter__ and friends': `[{{__defineGetter__}}][{{__lookupGetter__}}][{{hasOwnProperty}}][{{valueOf}}][{{toString}}]`,
  'each over the prototype': `{{#each (lookup this "__proto__")}}[{{@key}}]{{/each}}`,
  'prototype through a string': `{{#with "abc" as |s|}}[{{s.constructor}}][{{s.constructor.constructor}}][{{s.toString}}]{{/with}}`,
  'unknown helper': `{{exec "id"}}{{#run}}x{{/run}}`,
  'partial include': `{{> ../../../etc/passwd}}`,
  'log helper': `{{log "secret" level="error"}}`,
};

describe('the generator templates cannot run code', () => {
  afterEach(() => {
    rmSync(marker, { force: true });
    delete (globalThis as Record<string, unknown>).__ecobidPwned;
  });

  for (const [name, payload] of Object.entries(PAYLOADS)) {
    it(`refuses or defuses: ${name}`, () => {
      let output = '';
      const problems = checkTemplate(payload);
      if (problems.length === 0) {
        try {
          output = compileTemplate(payload)({ name: 'demo', fields: [{ name: 'a' }] });
        } catch (error) {
          expect(error).toBeInstanceOf(TemplateError);
        }
      } else {
        expect(problems[0]?.line).toBeGreaterThanOrEqual(1);
      }
      expect((globalThis as Record<string, unknown>).__ecobidPwned).toBeUndefined();
      expect(existsSync(marker)).toBe(false);
      expect(output).not.toMatch(/function|native code|\[object Object\]|Function/);
    });
  }

  it('still renders ordinary templates with the fixed helpers', () => {
    const render = compileTemplate(
      '{{pascalCase name}} {{camelCase "sys_user_post"}} {{plural "category"}} {{#if (eq kind "a")}}yes{{/if}} {{json list}} {{tsType "integer"}}',
    );
    expect(render({ name: 'sys-region', kind: 'a', list: [1, 'x'] })).toBe(
      'SysRegion sysUserPost categories yes [1,"x"] number',
    );
  });

  it('reports where a template is broken: line and column', () => {
    expect(checkTemplate('line one\n  {{#if x}}\n  {{/each}}')[0]).toMatchObject({ line: 2 });
    const [parse] = checkTemplate('a\nb {{foo bar');
    expect(parse).toMatchObject({ line: 2, column: 5 });
    const [unknown] = checkTemplate('ok\n\n   {{shell "rm"}}');
    expect(unknown).toMatchObject({ line: 3, column: 4 });
    expect(unknown?.message).toContain('shell');
  });
});
