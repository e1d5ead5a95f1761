// What a browser would submit for a form of a page, untouched: text and hidden
// inputs, ticked checkboxes, the selected option of each select, textareas.
// Rows in <template>s (for the page's script to add) are not part of it.

/** The fields of the page's form that posts to `action`, as [name, value] pairs in page order. */
export function formFieldsOf(html: string, action: string): [string, string][] {
  const start = html.indexOf(`<form method="post" action="${action}"`);
  if (start < 0) throw new Error(`no form posting to ${action}`);
  const form = html.slice(start, html.indexOf('</form>', start)).replace(/<template[\s\S]*?<\/template>/g, '');
  const fields: [number, string, string][] = [];
  for (const match of form.matchAll(/<input ([^>]*)>/g)) {
    const attributes = match[1]!;
    const type = attributeOf(attributes, 'type') ?? 'text';
    const name = attributeOf(attributes, 'name');
    if (name === undefined || type === 'submit' || (type === 'checkbox' && !/\schecked\b/.test(` ${attributes}`))) continue;
    fields.push([match.index, name, attributeOf(attributes, 'value') ?? (type === 'checkbox' ? 'on' : '')]);
  }
  for (const match of form.matchAll(/<textarea ([^>]*)>([\s\S]*?)<\/textarea>/g)) fields.push([match.index, attributeOf(match[1]!, 'name')!, decoded(match[2]!)]);
  for (const match of form.matchAll(/<select ([^>]*)>([\s\S]*?)<\/select>/g)) {
    const options = [...match[2]!.matchAll(/<option value="([^"]*)"( selected)?>/g)];
    const chosen = options.find((option) => option[2] !== undefined) ?? options[0];
    fields.push([match.index, attributeOf(match[1]!, 'name')!, decoded(chosen?.[1] ?? '')]);
  }
  return fields.sort(([a], [b]) => a - b).map(([, name, value]) => [name, value]);
}

function attributeOf(attributes: string, name: string): string | undefined {
  const value = new RegExp(`(?:^|\\s)${name}="([^"]*)"`).exec(attributes)?.[1];
  return value === undefined ? undefined : decoded(value);
}

function decoded(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;|&#34;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
}
