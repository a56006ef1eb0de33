import { useOne, useUpdate, type BaseRecord } from '@refinedev/core';
import { App, Checkbox, Flex } from 'antd';
import { useEffect, useState } from 'react';
import { useT } from '../../i18n.js';
import { useApiGet } from '../api.js';
import { API, errorText, Loading, SaveBar } from '../common.js';

/** An item of the menu_button dictionary as queryMenuButtonCheckbox answers it. */
interface ButtonOption {
  dictValue: string;
  dictName?: string;
}

/**
 * The buttons a screen has (sysmenu.menuButton, SPEC §7 queryMenuButtonCheckbox and
 * queryCheckedMenuButton): roles are later granted buttons out of this set.
 */
export function MenuButtons({
  menuId,
  menuCode,
  canSave,
  onSaved,
}: {
  menuId: number;
  menuCode: string;
  canSave: boolean;
  onSaved: () => void;
}) {
  const t = useT();
  const { message } = App.useApp();
  const options = useApiGet<ButtonOption[]>(`${API.menu}/queryMenuButtonCheckbox`);
  const current = useApiGet<string[]>(`${API.menu}/queryCheckedMenuButton`, { menuCode });
  // The version the update must carry (optimistic locking).
  const { result: menu } = useOne<BaseRecord>({ resource: 'sysmenu', id: menuId });
  const { mutateAsync, mutation } = useUpdate();
  const [checked, setChecked] = useState<string[] | undefined>(undefined);
  useEffect(() => {
    if (current.data && checked === undefined) setChecked(current.data);
  }, [current.data, checked]);

  const save = async (): Promise<void> => {
    try {
      await mutateAsync({
        resource: 'sysmenu',
        id: menuId,
        values: { menuButton: checked ?? [], version: menu?.version },
        successNotification: false,
      });
      void message.success(t('admin.crud.saved'));
      onSaved();
    } catch (error) {
      void message.error(errorText(error));
    }
  };

  return (
    <div data-testid="menu-buttons">
      <Loading isLoading={options.isLoading || checked === undefined}>
        <Checkbox.Group value={checked} onChange={(values) => setChecked(values.map(String))}>
          <Flex wrap gap={12}>
            {(options.data ?? []).map((option) => (
              <Checkbox key={option.dictValue} value={option.dictValue}>
                {t(`dicts.menu_button.${option.dictValue}`, {
                  defaultValue: option.dictName ?? option.dictValue,
                })}
              </Checkbox>
            ))}
          </Flex>
        </Checkbox.Group>
      </Loading>
      <SaveBar
        t={t}
        canSave={canSave && menu !== undefined}
        isSaving={mutation.isPending}
        onSave={() => void save()}
        testId="menu-buttons-save"
      />
    </div>
  );
}
