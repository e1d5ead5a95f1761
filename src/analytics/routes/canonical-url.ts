// The one URL of a view, for the analytics pages to redirect to before they
// show it, so that what is bookmarked or shared says only what applies:
//  - the filter form's rows (field, operator, value repeated) become the
//    `query` JSON, and the view starts again at its first page;
//  - `start_at`/`end_at` sent beside a preset `range` are dropped, as the
//    preset wins over them. The form always sends its date inputs (they show
//    the preset's dates, the starting point of a custom range) and works
//    without JavaScript, so the server drops them here rather than the page's
//    script disabling the inputs: one rule for every browser, and for links
//    made before it.
// A custom range (range=custom, or no range) keeps its dates.
import { isRangePreset } from '../query/date-range.js';
import { rulesFromFormRows } from './view-model.js';

/** Sent by the filter form's rows; `query` and the page's `start` are replaced by them. */
const FORM_ROW_PARAMS = ['field', 'operator', 'value', 'query', 'start'];
const DATE_PARAMS = ['start_at', 'end_at'];

/** Where to redirect a GET of the page at `path` with these parameters; null when its URL is the canonical one already. */
export function canonicalRedirect(path: string, params: Record<string, unknown>): string | null {
  const fromForm = params.field !== undefined;
  const staleDates = hasStaleDates(params);
  if (!fromForm && !staleDates) return null;
  const dropped = [...(fromForm ? FORM_ROW_PARAMS : []), ...(staleDates ? DATE_PARAMS : [])];
  const url = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (dropped.includes(key)) continue;
    for (const item of Array.isArray(value) ? value : [value]) if (item !== '') url.append(key, String(item));
  }
  if (fromForm) url.set('query', JSON.stringify(rulesFromFormRows(params)));
  return `${path}?${url.toString()}`;
}

function hasStaleDates(params: Record<string, unknown>): boolean {
  return isRangePreset(params.range) && DATE_PARAMS.some((name) => params[name] !== undefined);
}
