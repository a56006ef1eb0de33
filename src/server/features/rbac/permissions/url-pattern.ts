/**
 * URL permission patterns (the sysurl entity): segments separated by /, where * matches exactly
 * one segment and a final ** matches the rest of the path (zero or more segments).
 */
export function matchesUrlPattern(pattern: string, path: string): boolean {
  const wanted = pattern.split('/').filter((segment) => segment !== '');
  const actual =
    path
      .split('?')[0]
      ?.split('/')
      .filter((segment) => segment !== '') ?? [];
  for (let index = 0; index < wanted.length; index += 1) {
    const segment = wanted[index];
    if (segment === '**') return index === wanted.length - 1;
    if (index >= actual.length) return false;
    if (segment !== '*' && segment !== actual[index]) return false;
  }
  return wanted.length === actual.length;
}
