import { describe, expect, it } from 'vitest';
import { parseLogQuery } from '../../src/analytics/query/log-query.js';
import { PAGE_DEFAULTS } from '../../src/analytics/routes/view-model.js';
import { DAY, T0 } from './fixtures.js';

const MIDNIGHT = T0 - (T0 % DAY);

function errorOf(params: Record<string, unknown>): string {
  const parsed = parseLogQuery(params, T0);
  if (parsed.ok) throw new Error('expected an error');
  return parsed.error;
}

function queryOf(params: Record<string, unknown>, now = T0) {
  const parsed = parseLogQuery(params, now);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.query;
}

describe('analytics view parameters', () => {
  it('defaults to the last 14 days by day, no filter (as API Umbrella), newest first', () => {
    expect(queryOf({})).toEqual({
      range: { startAt: MIDNIGHT - 13 * DAY, endAt: MIDNIGHT + DAY, preset: 'last_14_days' },
      interval: 'day',
      rules: [],
      search: '',
      offset: 0,
      limit: 50,
      order: { field: 'request_at', direction: 'desc' },
    });
    expect(queryOf({ query: '' }).rules).toEqual([]);
  });

  it("takes a page's defaults: its length, and its filter hiding denied requests when query is absent or empty", () => {
    const hidden = [{ field: 'gatekeeper_denied_code', operator: 'is_null', value: null }];
    const page = (params: Record<string, unknown>) => {
      const parsed = parseLogQuery(params, T0, PAGE_DEFAULTS);
      if (!parsed.ok) throw new Error(parsed.error);
      return parsed.query;
    };
    expect(page({})).toMatchObject({ rules: hidden, limit: 50 });
    expect(page({ query: '' }).rules).toEqual(hidden);
    expect(page({ query: '[]' }).rules).toEqual([]);
  });

  it('takes a range and dates of nothing but spaces, as a form may send them, as not given', () => {
    expect(queryOf({ range: ' ', start_at: ' ', end_at: '' }).range).toEqual(queryOf({}).range);
    expect(errorOf({ start_at: ' ', end_at: '2027-01-01' })).toContain('start_at must be a date');
  });

  it('knows the presets, in UTC days', () => {
    const range = (preset: string) => queryOf({ range: preset }).range;
    expect(range('today')).toMatchObject({ startAt: MIDNIGHT, endAt: MIDNIGHT + DAY });
    expect(range('yesterday')).toMatchObject({ startAt: MIDNIGHT - DAY, endAt: MIDNIGHT });
    expect(range('last_7_days')).toMatchObject({ startAt: MIDNIGHT - 6 * DAY, endAt: MIDNIGHT + DAY });
    expect(range('last_30_days')).toMatchObject({ startAt: MIDNIGHT - 29 * DAY, endAt: MIDNIGHT + DAY });
  });

  it('knows this month (to the end of today) and last month, across a year end', () => {
    const range = (preset: string, now: number) => queryOf({ range: preset }, now).range;
    const midJanuary = Date.UTC(2027, 0, 15, 13, 30);
    expect(range('this_month', midJanuary)).toEqual({ startAt: Date.UTC(2027, 0, 1), endAt: Date.UTC(2027, 0, 16), preset: 'this_month' });
    expect(range('last_month', midJanuary)).toEqual({ startAt: Date.UTC(2026, 11, 1), endAt: Date.UTC(2027, 0, 1), preset: 'last_month' });
    expect(range('last_month', Date.UTC(2026, 2, 31, 23, 59))).toMatchObject({ startAt: Date.UTC(2026, 1, 1), endAt: Date.UTC(2026, 2, 1) });
  });

  it('reads dates (whole days, end inclusive) and date-times (UTC unless an offset is given)', () => {
    expect(queryOf({ start_at: '2026-01-01', end_at: '2026-01-02' }).range).toEqual({ startAt: Date.UTC(2026, 0, 1), endAt: Date.UTC(2026, 0, 3), preset: null });
    expect(queryOf({ start_at: '2026-01-01T10:00', end_at: '2026-01-01T11:30:15Z' }).range).toMatchObject({
      startAt: Date.UTC(2026, 0, 1, 10),
      endAt: Date.UTC(2026, 0, 1, 11, 30, 15) + 1,
    });
    expect(queryOf({ start_at: '2026-01-01T10:00:00+02:00', end_at: '2026-01-02' }).range.startAt).toBe(Date.UTC(2026, 0, 1, 8));
    expect(queryOf({ range: 'custom', start_at: '2026-01-01', end_at: '2026-01-01' }).range.preset).toBeNull();
    expect(queryOf({ range: 'today', start_at: '2026-01-01', end_at: '2026-01-01' }).range.preset).toBe('today');
  });

  it('accepts the filters as a list or as API Umbrella query builder rules, with the issue\'s operator names', () => {
    const rule = { field: 'response_status', operator: 'greater', value: 499 };
    expect(queryOf({ query: JSON.stringify([rule]) }).rules).toEqual([rule]);
    expect(queryOf({ query: JSON.stringify({ condition: 'AND', rules: [{ id: 'response_status', operator: 'gt', value: '499' }] }) }).rules).toEqual([rule]);
    expect(queryOf({ query: JSON.stringify([{ field: 'user_id', operator: 'is_not_empty' }]) }).rules).toEqual([{ field: 'user_id', operator: 'is_not_null', value: null }]);
    expect(queryOf({ query: '[]' }).rules).toEqual([]);
  });

  it("accepts API Umbrella's negated and inclusive operators: not_begins_with, not_contains, less_or_equal, greater_or_equal", () => {
    const rules = [
      { id: 'request_path', operator: 'not_begins_with', value: '/v1' },
      { id: 'user_email', operator: 'not_contains', value: 'example' },
      { id: 'response_status', operator: 'less_or_equal', value: '499' },
      { id: 'response_time', operator: 'greater_or_equal', value: 10 },
    ];
    expect(queryOf({ query: JSON.stringify({ condition: 'AND', rules }) }).rules).toEqual([
      { field: 'request_path', operator: 'not_begins_with', value: '/v1' },
      { field: 'user_email', operator: 'not_contains', value: 'example' },
      { field: 'response_status', operator: 'less_or_equal', value: 499 },
      { field: 'response_time', operator: 'greater_or_equal', value: 10 },
    ]);
  });

  it("charts minutes over up to a week, as API Umbrella's admin does over two days", () => {
    expect(queryOf({ interval: 'minute', start_at: '2026-01-12', end_at: '2026-01-13' }).interval).toBe('minute');
    expect(queryOf({ interval: 'minute', start_at: '2026-01-12', end_at: '2026-01-18' }).interval).toBe('minute');
    expect(errorOf({ interval: 'minute', start_at: '2026-01-12', end_at: '2026-01-19' })).toContain('The interval minute is too short for this date range');
  });

  it('takes text with a colon that names no field as free text', () => {
    for (const search of ['https://example.com', 'session:42', ' urn:isbn:123']) expect(parseLogQuery({ search }, T0).ok, search).toBe(true);
  });

  it.each([
    [{ query: '[{"field":"password","operator":"equal","value":"x"}]' }, 'Unknown filter field "password"'],
    [{ query: '[{"field":"request_path","operator":"like","value":"x"}]' }, 'Unknown filter operator "like"'],
    [{ query: '[{"field":"request_path","operator":"less","value":"x"}]' }, '"<" needs a number field; request_path is text'],
    [{ query: '[{"field":"response_time","operator":"contains","value":"1"}]' }, '"contains" needs a text field'],
    [{ query: '[{"field":"response_time","operator":"not_contains","value":"1"}]' }, '"does not contain" needs a text field'],
    [{ query: '[{"field":"response_status","operator":"not_begins_with","value":"5"}]' }, '"does not begin with" needs a text field'],
    [{ query: '[{"field":"request_path","operator":"less_or_equal","value":"1"}]' }, '"≤" needs a number field; request_path is text'],
    [{ query: '[{"field":"request_path","operator":"greater_or_equal","value":"1"}]' }, '"≥" needs a number field; request_path is text'],
    [{ query: '[{"field":"request_path","operator":"not_contains","value":""}]' }, '"does not contain" on request_path needs a value'],
    [{ query: '[{"field":"response_time","operator":"equal","value":"fast"}]' }, 'response_time compares numbers; "fast" is not a number'],
    [{ query: '[{"field":"response_status","operator":"equal","value":"0x1F4"}]' }, 'response_status compares numbers; "0x1F4" is not a number'],
    [{ query: '[{"field":"response_time","operator":"between","value":"1"}]' }, '"between" on response_time needs two numbers'],
    [{ query: '[{"field":"request_path","operator":"equal","value":""}]' }, '"equals" on request_path needs a value'],
    [{ query: '{"condition":"OR","rules":[]}' }, 'Filters can only be combined with AND'],
    [{ query: '{"condition":"AND","rules":[{"condition":"AND","rules":[]}]}' }, 'Filter groups cannot be nested: give one list of filters, combined with AND'],
    [{ query: '[{' }, 'query is not valid JSON'],
    [{ query: '"x"' }, 'query must be a JSON list of filters'],
    [{ start_at: '2026-02-30', end_at: '2026-03-01' }, 'start_at must be a date (YYYY-MM-DD) or an ISO date-time, got "2026-02-30"'],
    [{ start_at: 'yesterday', end_at: '2026-03-01' }, 'start_at must be a date'],
    [{ start_at: '2026-01-01' }, 'end_at must be a date'],
    [{ start_at: '2026-03-01', end_at: '2026-01-01' }, 'end_at must not be before start_at'],
    [{ start_at: '2025-01-01', end_at: '2026-01-02' }, 'The date range may span at most one year'],
    [{ range: 'last_year' }, 'Unknown date range "last_year"'],
    [{ range: 'toString' }, 'Unknown date range "toString"'],
    [{ interval: 'second' }, 'Unknown interval "second"'],
    [{ interval: 'minute', range: 'last_14_days' }, 'The interval minute is too short for this date range'],
    [{ start: '-1' }, 'start must be a whole number'],
    [{ length: '5000' }, 'length must be a whole number from 1 to 1000'],
    [{ order: 'password:desc' }, 'order must be a logged field'],
    [{ order: 'request_at:sideways' }, 'order must be a logged field'],
    [{ search: ['a', 'b'] }, 'search must be text'],
    [{ search: 'response_status:200' }, 'for "response_status:…" (API Umbrella\'s advanced search) add a filter on response_status instead'],
    // Names every object inherits are not operators.
    [{ query: '[{"field":"request_path","operator":"toString","value":"x"}]' }, 'Unknown filter operator "toString"'],
    [{ query: '[{"field":"request_path","operator":"__proto__","value":"x"}]' }, 'Unknown filter operator "__proto__"'],
    // JSON objects that String() cannot turn into text.
    [{ query: '[{"field":{"toString":1},"operator":"equal","value":"x"}]' }, 'Unknown filter field {"toString":1}'],
    [{ query: '[{"field":"request_path","operator":{"toString":1},"value":"x"}]' }, 'Unknown filter operator {"toString":1}'],
    [{ query: '[{"field":"response_time","operator":"equal","value":{"toString":1}}]' }, 'response_time compares numbers; {"toString":1} is not a number'],
    [{ query: '{"condition":{"toString":1},"rules":[]}' }, 'Filters can only be combined with AND'],
    [{ start_at: '2026-01-01T10:00+24:00', end_at: '2026-01-02' }, 'start_at must be a date'],
    [{ start_at: '2026-01-01', end_at: '2026-01-02T10:00-05:60' }, 'end_at must be a date'],
  ])('rejects %j', (params, message) => {
    expect(errorOf(params)).toContain(message);
  });
});
