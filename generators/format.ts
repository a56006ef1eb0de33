/**
 * Generated files are written as the project's own formatter writes them, so that `prettier
 * --check` passes on a module as generated. The options are the project's (.prettierrc.json).
 * Prettier is a development dependency: where it is not installed (a production server
 * previewing a module), the text is left as the template gave it; the protected-region checksum
 * ignores formatting either way (regions.ts).
 */
export const PRETTIER_OPTIONS = {
  singleQuote: true,
  semi: true,
  printWidth: 110,
  trailingComma: 'all',
} as const;

type Format = (text: string, options: Record<string, unknown>) => Promise<string>;

let formatter: Promise<Format | undefined> | undefined;

function loadFormatter(): Promise<Format | undefined> {
  formatter ??= import('prettier').then(
    (prettier) => prettier.format as Format,
    () => undefined,
  );
  return formatter;
}

function parserOf(path: string): string | undefined {
  if (/\.tsx?$/.test(path)) return 'typescript';
  if (/\.json$/.test(path)) return 'json';
  return undefined;
}

/** The text formatted for its file's kind (TypeScript, JSON); other kinds (SQL) as they are. */
export async function formatGenerated(path: string, text: string): Promise<string> {
  const parser = parserOf(path);
  if (!parser) return text;
  const format = await loadFormatter();
  if (!format) return text;
  return format(text, { ...PRETTIER_OPTIONS, parser, filepath: path });
}
