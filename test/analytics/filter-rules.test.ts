import { describe, expect, it } from 'vitest';
import { OPERATORS, parseRule, ruleSql, type FilterRule } from '../../src/analytics/query/filter-rules.js';

const MARKER = "x' OR 1=1 --";

/** The rule on the field, with a value the operator takes. */
function rule(field: string, operator: string): FilterRule {
  const value = operator === 'between' ? '1,2' : /less|greater/.test(operator) || field === 'response_time' ? 7 : MARKER;
  const parsed = parseRule({ field, operator, value });
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

describe('filter rules as SQL', () => {
  // A field of the row, one of the client's context, one looked up by IP, and the two API Umbrella matches case and all.
  const TEXT_FIELDS = ['request_path', 'request_method', 'request_ip_country', 'api_key_preview', 'request_ip_city'];
  const TEXT_OPERATORS = Object.keys(OPERATORS).filter((name) => !/less|greater|between/.test(name));
  const NUMBER_OPERATORS = Object.keys(OPERATORS).filter((name) => !/begins|contains/.test(name));
  const cases = [
    ...TEXT_FIELDS.flatMap((field) => TEXT_OPERATORS.map((operator) => [field, operator])),
    ...NUMBER_OPERATORS.map((operator) => ['response_time', operator]),
  ];

  it.each(cases)('binds every value of %s %s as a parameter', (field, operator) => {
    const { sql, params } = ruleSql(rule(field!, operator!));
    expect(sql).not.toContain('OR 1=1');
    expect(sql.split('?').length - 1).toBe(params.length);
  });
});
