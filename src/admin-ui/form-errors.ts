// Validation errors as a form shows them: next to each field, and as a
// summary above the form with readable field names.
import type { FieldErrors } from '../lib/validation-errors.js';

export class FormErrors {
  constructor(
    private readonly errors: FieldErrors = {},
    private readonly label: (field: string) => string = (field) => field,
  ) {}

  get any(): boolean {
    return Object.keys(this.errors).length > 0;
  }

  /** Messages for exactly this field. */
  at(field: string): string[] {
    return this.errors[field] ?? [];
  }

  /** Messages for this field and everything inside it (e.g. every header line). */
  under(prefix: string): string[] {
    return Object.entries(this.errors)
      .filter(([field]) => field === prefix || field.startsWith(`${prefix}.`) || field.startsWith(`${prefix}[`))
      .flatMap(([, messages]) => messages);
  }

  /** One line per message, named by its field unless it is a sentence already ("Provide your email address."). */
  summary(): string[] {
    return Object.entries(this.errors).flatMap(([field, messages]) =>
      messages.map((message) => (/^[A-Z]/.test(message) ? message : `${this.label(field)} ${message}`)),
    );
  }
}
