import { LANGUAGES, type Language } from '../../engine/language.js';
import type { EntitySchema, FieldSchema, Titles } from '../../engine/types.js';

type Bundle = Record<string, unknown>;

/** Sets a nested key (entities.<name>.fields.<field>) in a bundle. */
function put(bundle: Bundle, path: readonly string[], value: string): void {
  let node = bundle;
  for (const part of path.slice(0, -1)) {
    const next = node[part];
    if (typeof next === 'object' && next !== null) node = next as Bundle;
    else node = node[part] = {};
  }
  node[path[path.length - 1] ?? ''] = value;
}

const titlesOf = (schema: { 'x-ui'?: { titles?: Titles } }): Titles | undefined => schema['x-ui']?.titles;

/**
 * The texts a schema carries itself, as the locale keys the generated screens read: a designed
 * form's titles in zh / tw / en (root and per field, x-ui.titles) become entities.<name>.title,
 * entities.<name>.fields.<field> and entities.<name>.details.<field>.<column>; its help (x-ui.help)
 * becomes entities.<name>.help.<field> in every language. Schema files keep their texts in the
 * locale files and carry none of these.
 */
export function schemaTexts(
  entities: readonly { name: string; schema: EntitySchema }[],
): Record<Language, Bundle> {
  const texts = Object.fromEntries(LANGUAGES.map((language) => [language, {}])) as Record<Language, Bundle>;
  const titled = (path: string[], titles: Titles | undefined): void => {
    for (const language of LANGUAGES) {
      const text = titles?.[language];
      if (text) put(texts[language], path, text);
    }
  };
  for (const { name, schema } of entities) {
    titled(['entities', name, 'title'], titlesOf(schema));
    // a schema the browser cannot build (no properties) is left out of the screens as well
    const properties = (schema as Partial<EntitySchema>).properties ?? {};
    for (const [field, property] of Object.entries(properties) as [string, FieldSchema][]) {
      titled(['entities', name, 'fields', field], titlesOf(property));
      const help = property['x-ui']?.help;
      if (help)
        for (const language of LANGUAGES) put(texts[language], ['entities', name, 'help', field], help);
      for (const [column, item] of Object.entries(property.items?.properties ?? {}) as [
        string,
        FieldSchema,
      ][])
        titled(['entities', name, 'details', field, column], titlesOf(item));
    }
  }
  return texts;
}
