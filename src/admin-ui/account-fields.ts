// Reading the fields of the web admin's forms.

/** A form value as sent (absent or repeated fields count as blank); callers trim what is not a password. */
export function formString(body: unknown, field: string): string {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[field] : undefined;
  return typeof value === 'string' ? value : '';
}

/** Every value of a field sent once per checked box (none when no box is checked). */
export function formStrings(body: unknown, field: string): string[] {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[field] : undefined;
  return [value].flat().filter((item): item is string => typeof item === 'string');
}
