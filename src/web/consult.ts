/**
 * The online-consultation widget (docs/product.md §1): a third-party customer-service page, opened with the
 * visitor's id, name (or display name) and mobile. Its address (customerServiceUrl) and the names
 * of its query parameters (customerServiceParams, e.g. "uid={id}&uname={name}&tel={mobile}") are
 * params, since every widget vendor names them its own way.
 */

export interface ConsultVisitor {
  id: number;
  /** Organisation name (docs/product.md §6), preferred over the display name. */
  name?: string | null;
  zname?: string | null;
  nickname?: string | null;
  username?: string | null;
  mobile?: string | null;
}

/** The parameters a widget gets when the site names none. */
export const DEFAULT_CONSULT_PARAMS = 'userId={id}&name={name}&mobile={mobile}';

const PLACEHOLDER = /\{(id|name|mobile)\}/g;

/**
 * The widget's address with the visitor's identity filled in. A parameter whose value needs the
 * visitor is left out for an anonymous visitor; fixed ones (a channel id) are always sent.
 */
export function consultUrl(
  base: string,
  template: string | undefined,
  visitor: ConsultVisitor | null,
  origin: string,
): string {
  const url = new URL(base, origin);
  const values: Record<string, string> = visitor
    ? {
        id: String(visitor.id),
        name: visitor.name || visitor.zname || visitor.nickname || visitor.username || '',
        mobile: visitor.mobile ?? '',
      }
    : {};
  for (const [key, raw] of new URLSearchParams(template?.trim() || DEFAULT_CONSULT_PARAMS)) {
    const needsVisitor = raw.search(PLACEHOLDER) >= 0;
    PLACEHOLDER.lastIndex = 0;
    if (needsVisitor && !visitor) continue;
    url.searchParams.set(
      key,
      raw.replace(PLACEHOLDER, (_match, name: string) => values[name] ?? ''),
    );
  }
  return url.toString();
}

/** Opens the widget in a small window of its own. */
export function openConsultWidget(url: string): void {
  window.open(url, 'ecobid-consult', 'noopener,width=420,height=640');
}
