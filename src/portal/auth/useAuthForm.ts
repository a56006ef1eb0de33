import { useState } from 'react';
import { usePortal } from '../context.js';
import { ApiError } from '../../web/http.js';
import { serverMessage, type Errors } from './forms.js';

/**
 * The state every account form keeps: its values, the field errors, the alert message and the busy flag.
 * K names the text values; E the fields that can show an error (by default the same).
 */
export function useAuthForm<K extends string, E extends string = K>(initial: Record<K, string>) {
  const { t } = usePortal();
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<Errors<E | K>>({});
  const [message, setMessage] = useState<string>();
  const [isBusy, setIsBusy] = useState(false);

  /** Changes one value and clears its error. */
  const set = (key: K, value: string): void => {
    setValues({ ...values, [key]: value });
    if (errors[key]) setErrors({ ...errors, [key]: undefined });
  };
  /** Clears the field errors and the alert (on a change of mode). */
  const clearFeedback = (): void => {
    setErrors({});
    setMessage(undefined);
  };
  /**
   * Shows the errors found; when there are none, runs the call while busy and shows its failure in
   * the alert (then calls onFailure).
   */
  const submit = async (
    found: Errors<E | K>,
    call: () => Promise<void>,
    onFailure?: () => void,
  ): Promise<void> => {
    setErrors(found);
    setMessage(undefined);
    if (Object.keys(found).length > 0) return;
    setIsBusy(true);
    try {
      await call();
    } catch (error) {
      // the server names the field (/email): its message goes under that field when the form has it
      const onFields: Errors<E | K> = {};
      if (error instanceof ApiError)
        for (const item of error.errors) {
          const key = item.field.replace(/^\//, '');
          if (key in values) onFields[key as E | K] = item.message;
        }
      if (Object.keys(onFields).length > 0) setErrors(onFields);
      else setMessage(serverMessage(error, t('auth.failed')));
      onFailure?.();
    } finally {
      setIsBusy(false);
    }
  };
  return { values, setValues, errors, message, setMessage, isBusy, set, clearFeedback, submit };
}
