import type { FormInstance } from 'antd';
import { fieldMessages } from '../providers/data.js';

/**
 * Puts a failed save's field errors on the form's own fields (an error on `allowList/0` or
 * `address.city` goes to `allowList` or `address`): true when at least one of `fields` got one,
 * false when the failure names none of them (then the caller shows its message).
 */
export function showFieldErrors<Values>(
  form: FormInstance<Values>,
  fields: readonly string[],
  error: unknown,
): boolean {
  const messages = Object.entries(fieldMessages(error));
  const topOf = (field: string): string => field.split(/[./]/)[0] ?? field;
  const named = fields.filter((name) => messages.some(([field]) => topOf(field) === name));
  if (named.length === 0) return false;
  form.setFields(
    named.map((name) => ({
      name: name as never,
      errors: messages.filter(([field]) => topOf(field) === name).flatMap(([, texts]) => texts),
    })),
  );
  return true;
}
