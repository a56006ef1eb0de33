import { Empty, Tabs } from 'antd';
import type { RecordScreenProps } from '../../../entity/record-screen.js';
import { useT } from '../../../i18n.js';
import { useCanButton } from '../../../lib/api.js';
import { tab } from '../../../lib/screen-parts.js';
import { DataFieldEditor } from '../datafields/DataFieldEditor.js';
import { MenuButtons } from './MenuButtons.js';

/** The entity behind a generated screen's menu (component entity/<name>), if any. */
export function menuEntity(component: unknown): string | undefined {
  return typeof component === 'string' && component.startsWith('entity/')
    ? component.slice('entity/'.length)
    : undefined;
}

/**
 * A menu's buttons and its data fields per role, opened from the menu list for one checked menu.
 * Data fields exist only for generated screens; the server files them under the entity name.
 */
export default function MenuAuthority({ record, onClose }: RecordScreenProps) {
  const t = useT();
  const can = useCanButton('sysmenu');
  const menuCode = String(record.menuCode ?? '');
  const entity = menuEntity(record.menuComponent);
  return (
    <Tabs
      data-testid="menu-authority"
      items={[
        tab(
          'buttons',
          t('admin.screens.menu.buttons'),
          <MenuButtons
            menuId={Number(record.id)}
            menuCode={menuCode}
            canSave={can('update')}
            onSaved={() => onClose(true)}
          />,
        ),
        tab(
          'dataFields',
          t('admin.screens.menu.dataFields'),
          entity ? (
            <DataFieldEditor
              menuCode={entity}
              entity={entity}
              permissions={{ canAdd: can('update'), canSave: can('update'), canDelete: can('update') }}
            />
          ) : (
            <Empty description={t('admin.screens.menu.noDataFields')} />
          ),
        ),
      ]}
    />
  );
}
