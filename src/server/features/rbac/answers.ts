import { serializedRecordOf, type EntityDef } from '../../../engine/index.js';
import { dictionary, object } from '../../lib/route-schema.js';

type Json = Record<string, unknown>;

const STRINGS = { type: 'array', items: { type: 'string' } };

/** A menu as the menu trees answer it: the record with its sub-menus. */
export function menuNodeSchema(menu: EntityDef): Json {
  const record = serializedRecordOf(menu);
  return {
    ...record,
    properties: {
      ...(record.properties as Json),
      children: { description: 'the sub-menus, each a menu of this shape (absent on a leaf)' },
    },
  };
}

/** What the caller's roles may see (engine CurrentAuthority), as queryCurrentAuthority answers it. */
export function currentAuthoritySchema(menu: EntityDef) {
  return object(
    {
      roles: { ...STRINGS, description: 'the roles the answer is for: those acted in, narrowed by the post' },
      currentRole: {
        type: ['string', 'null'],
        description: 'the first of roles; null when the post leaves none',
      },
      postCode: { type: ['string', 'null'], description: 'the post the answer is for' },
      menus: {
        type: 'array',
        items: menuNodeSchema(menu),
        description: 'the menu tree the roles allow (enabled menus only)',
      },
      menu: { ...STRINGS, description: 'every allowed menu path, nested routes included' },
      buttons: dictionary(STRINGS, { description: 'the buttons the roles may use, by menu code' }),
      fieldRights: dictionary(
        object(
          {
            hidden: { ...STRINGS, description: 'fields left out of reads, refused in writes' },
            readOnly: { ...STRINGS, description: 'fields shown, refused in a write that changes them' },
          },
          ['hidden', 'readOnly'],
        ),
        { description: 'the fields the roles hide or keep read-only, by menu code (absent: none)' },
      ),
    },
    ['roles', 'currentRole', 'postCode', 'menus', 'menu', 'buttons', 'fieldRights'],
  );
}
