import { describe, expect, it } from 'vitest';
import { HeaderTemplates, templateProblem } from '../../src/gateway/header-templates.js';

describe('templateProblem', () => {
  it('passes values that are no templates, and templates that parse', () => {
    expect(templateProblem('plain value { } }}')).toBeNull();
    expect(templateProblem('({{headers.x-a}}-{{{headers.x-b}}})')).toBeNull();
    expect(templateProblem('{{#headers.x}}{{headers.x}}{{/headers.x}}{{^headers.x}}default{{/headers.x}}')).toBeNull();
  });

  it.each([
    ['an unclosed tag', '{{headers.x-a'],
    ['an unclosed section', '{{#headers.x}}never closed'],
    ['a section closed under another name', '{{#headers.x}}{{/headers.y}}'],
    ['an unopened section', 'a{{/headers.x}}'],
  ])('names what is wrong with %s', (_case, value) => {
    expect(templateProblem(value)).toMatch(/^is not a valid template \(.+\)$/);
  });
});

describe('HeaderTemplates.split', () => {
  const fixed = { key: 'X-Fixed', value: 'a { b }' };
  const template = { key: 'X-Template', value: '{{headers.x}}' };

  it('compiles nothing for headers without templates', () => {
    const headers = [fixed];
    expect(HeaderTemplates.split(headers, false)).toEqual({ fixed: headers, templates: null });
  });

  it('keeps the fixed headers apart from the templates, and leaves out a template that cannot be parsed', () => {
    expect(HeaderTemplates.split([template, fixed], false).fixed).toEqual([fixed]);
    expect(HeaderTemplates.split([fixed, { key: 'X-Broken', value: '{{#x}}' }], false)).toEqual({ fixed: [fixed], templates: null });
  });
});
