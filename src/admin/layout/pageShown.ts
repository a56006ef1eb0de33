/**
 * Whether the first page of this visit has been shown (its screen committed inside the route's
 * Suspense boundary, layout/MenuPage.tsx). What the page does not need waits for it (Sidebar.tsx:
 * the menu), so a cold load spends its first moments on the page the user opened.
 */
let isShown = false;
const listeners = new Set<() => void>();

export function markPageShown(): void {
  if (isShown) return;
  isShown = true;
  for (const listener of listeners) listener();
  listeners.clear();
}

/** Calls the listener once the first page is shown (at once if it is); returns the unsubscribe. */
export function onPageShown(listener: () => void): () => void {
  if (isShown) {
    listener();
    return () => undefined;
  }
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}
