import { useOne, useUpdate, type BaseRecord } from '@refinedev/core';
import { useT } from '../../../i18n.js';
import { useApiGet } from '../../../lib/api.js';
import { API, CheckList, SavePanel, useDraft, useSubmit } from '../../../lib/screen-parts.js';

/** An item of the menu_button dictionary as queryMenuButtonCheckbox answers it. */
interface ButtonOption {
  dictValue: string;
  dictName?: string;
}

/**
 * The buttons a screen has (sysmenu.menuButton, docs/product.md §7 queryMenuButtonCheckbox and
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
  const options = useApiGet<ButtonOption[]>(`${API.menu}/queryMenuButtonCheckbox`);
  const current = useApiGet<string[]>(`${API.menu}/queryCheckedMenuButton`, { menuCode });
  // The version the update must carry (optimistic locking).
  const { result: menu } = useOne<BaseRecord>({ resource: 'sysmenu', id: menuId });
  const { mutateAsync, mutation } = useUpdate();
  const [checked, setChecked] = useDraft(current.data);
  const submit = useSubmit();

  const save = (): Promise<void> =>
    submit(
      () =>
        mutateAsync({
          resource: 'sysmenu',
          id: menuId,
          values: { menuButton: checked ?? [], version: menu?.version },
          successNotification: false,
        }),
      { success: t('admin.crud.saved'), after: onSaved },
    );

  return (
    <SavePanel
      testId="menu-buttons"
      isLoading={options.isLoading || checked === undefined}
      canSave={canSave && menu !== undefined}
      isSaving={mutation.isPending}
      onSave={() => void save()}
    >
      <CheckList
        wrap
        value={checked}
        onChange={setChecked}
        options={(options.data ?? []).map((option) => ({
          value: option.dictValue,
          label: t(`dicts.menu_button.${option.dictValue}`, {
            defaultValue: option.dictName ?? option.dictValue,
          }),
        }))}
      />
    </SavePanel>
  );
}
