import { useEffect, type RefObject } from 'react';

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * What a modal dialog owes keyboard users (WCAG 2.1.2, 2.4.3): focus moves into it when it opens,
 * Tab and Shift+Tab stay inside, Escape closes it, and focus goes back to where it was.
 */
export function useDialogFocus(
  isOpen: boolean,
  container: RefObject<HTMLElement | null>,
  onClose: () => void,
): void {
  useEffect(() => {
    const box = container.current;
    if (!isOpen || !box) return;
    const returnTo = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const focusables = (): HTMLElement[] => [...box.querySelectorAll<HTMLElement>(FOCUSABLE)];
    // A box that fades in may not be visible yet and its items not focusable (with reduced motion
    // every element transitions the inherited visibility for a moment): tried again for up to 1 s.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const focusFirst = (triesLeft: number): void => {
      focusables()[0]?.focus();
      if (!box.contains(document.activeElement) && triesLeft > 0)
        timer = setTimeout(() => focusFirst(triesLeft - 1), 20);
    };
    focusFirst(50);
    const onKey = (event: KeyboardEvent): void => {
      if (event.key === 'Escape') {
        event.preventDefault();
        onClose();
        return;
      }
      if (event.key !== 'Tab') return;
      const items = focusables();
      const first = items[0];
      const last = items[items.length - 1];
      if (!first || !last) return;
      if (event.shiftKey && document.activeElement === first) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && document.activeElement === last) {
        event.preventDefault();
        first.focus();
      }
    };
    box.addEventListener('keydown', onKey);
    return () => {
      clearTimeout(timer);
      box.removeEventListener('keydown', onKey);
      returnTo?.focus();
    };
  }, [isOpen, container, onClose]);
}
