import { useEffect, useState } from 'react';
import { TOAST_MS } from '../../web/http.js';

type Kind = 'error' | 'success' | 'info';
interface Toast {
  id: number;
  kind: Kind;
  text: string;
}

let nextId = 1;
let toasts: Toast[] = [];
const listeners = new Set<(list: Toast[]) => void>();
const emit = (): void => listeners.forEach((listener) => listener(toasts));

/** A message at the top of the screen (docs/product.md §8: errors stay 5 s). */
export function toast(text: string, kind: Kind = 'error', ms = TOAST_MS): void {
  const item = { id: nextId++, kind, text };
  toasts = [...toasts.filter((other) => other.text !== text), item].slice(-4);
  emit();
  setTimeout(() => {
    toasts = toasts.filter((other) => other.id !== item.id);
    emit();
  }, ms);
}

export function ToastHost() {
  const [list, setList] = useState<Toast[]>(toasts);
  useEffect(() => {
    listeners.add(setList);
    return () => {
      listeners.delete(setList);
    };
  }, []);
  return (
    <div className="toast-host" role="status" aria-live="polite">
      {list.map((item) => (
        <div key={item.id} className={`toast toast-${item.kind}`}>
          {item.text}
        </div>
      ))}
    </div>
  );
}
