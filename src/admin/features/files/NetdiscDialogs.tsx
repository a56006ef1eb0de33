import { Alert, Form, Input, Modal, Select, TreeSelect, Typography } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import type {
  FolderNode,
  NetdiscItemRef,
  NetdiscTargetType,
  OrgUserNode,
  ShareTarget,
} from '../../../engine/api-types.js';
import { useT } from '../../i18n.js';
import { API, errorText, roleLabel, type RoleOption } from '../../lib/screen-parts.js';
import { useApiGet, withQuery } from '../../lib/api.js';
import { NETDISC_API, subtreeIds } from './netdisc-api.js';

/**
 * A name asked for in a dialog (新建文件夹, 重命名): the server's refusal (a taken or empty name)
 * stays under the field, the dialog stays open.
 */
export function NameDialog({
  title,
  initialName,
  isOpen,
  onClose,
  onSubmit,
}: {
  title: string;
  initialName: string;
  isOpen: boolean;
  onClose: () => void;
  onSubmit: (name: string) => Promise<unknown>;
}) {
  const t = useT();
  const [name, setName] = useState(initialName);
  const [error, setError] = useState<string | undefined>(undefined);
  const [isSaving, setSaving] = useState(false);
  useEffect(() => {
    if (isOpen) {
      setName(initialName);
      setError(undefined);
    }
  }, [isOpen, initialName]);
  const submit = async (): Promise<void> => {
    if (name.trim() === '') {
      setError(t('netdisc.nameRequired'));
      return;
    }
    setSaving(true);
    try {
      await onSubmit(name.trim());
      onClose();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setSaving(false);
    }
  };
  return (
    <Modal
      open={isOpen}
      title={title}
      okText={t('admin.common.confirm')}
      cancelText={t('admin.common.cancel')}
      onOk={() => void submit()}
      onCancel={onClose}
      confirmLoading={isSaving}
      destroyOnHidden
    >
      <Form layout="vertical" onFinish={() => void submit()}>
        <Form.Item
          label={t('netdiscUi.name')}
          validateStatus={error ? 'error' : undefined}
          help={error}
          htmlFor="netdisc-name"
        >
          <Input
            id="netdisc-name"
            autoFocus
            maxLength={100}
            value={name}
            onChange={(event) => {
              setName(event.target.value);
              setError(undefined);
            }}
            data-testid="netdisc-name-input"
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}

interface FolderOption {
  value: string;
  title: string;
  children: FolderOption[];
}

const ROOT_VALUE = 'root';

/** 移动到: a folder of the caller's tree (the root included); moved folders and their subfolders are left out. */
export function MoveDialog({
  items,
  tree,
  onClose,
  onMove,
}: {
  items: NetdiscItemRef[] | undefined;
  tree: readonly FolderNode[];
  onClose: () => void;
  onMove: (targetFolderId: number | null) => Promise<unknown>;
}) {
  const t = useT();
  const [target, setTarget] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    setTarget(undefined);
    setError(undefined);
  }, [items]);
  const options = useMemo<FolderOption[]>(() => {
    const blocked = new Set<number>();
    for (const item of items ?? [])
      if (item.type === 'folder') for (const id of subtreeIds(tree, item.id)) blocked.add(id);
    const toOptions = (nodes: readonly FolderNode[]): FolderOption[] =>
      nodes
        .filter((node) => !blocked.has(node.id))
        .map((node) => ({ value: String(node.id), title: node.name, children: toOptions(node.children) }));
    return [{ value: ROOT_VALUE, title: t('netdisc.root'), children: toOptions(tree) }];
  }, [items, tree, t]);
  const submit = async (): Promise<void> => {
    if (!target) {
      setError(t('netdiscUi.chooseTarget'));
      return;
    }
    try {
      await onMove(target === ROOT_VALUE ? null : Number(target));
      onClose();
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  return (
    <Modal
      open={items !== undefined}
      title={t('netdiscUi.moveTo')}
      okText={t('admin.common.confirm')}
      cancelText={t('admin.common.cancel')}
      onOk={() => void submit()}
      onCancel={onClose}
      destroyOnHidden
    >
      <Form layout="vertical">
        <Form.Item
          label={t('netdiscUi.targetFolder')}
          validateStatus={error ? 'error' : undefined}
          help={error}
          htmlFor="netdisc-move-target"
        >
          <TreeSelect
            id="netdisc-move-target"
            treeData={options}
            treeDefaultExpandAll
            value={target}
            onChange={(value: string) => {
              setTarget(value);
              setError(undefined);
            }}
            placeholder={t('netdiscUi.chooseTarget')}
            data-testid="netdisc-move-target"
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}

interface TreeOption {
  value: string;
  title: string;
  children: TreeOption[];
}

function orgUserOptions(nodes: readonly OrgUserNode[]): TreeOption[] {
  return nodes.map((node) => ({
    value: `${node.type}:${node.id}`,
    title: node.type === 'user' ? `${node.title} (${node.username})` : node.title,
    children: node.type === 'org' ? orgUserOptions(node.children) : [],
  }));
}

const targetValue = (target: Pick<ShareTarget, 'type' | 'id'>): string => `${target.type}:${target.id}`;

function targetOf(value: string): { type: NetdiscTargetType; id: number } | undefined {
  const match = /^(user|role|org):(\d+)$/.exec(value);
  return match ? { type: match[1] as NetdiscTargetType, id: Number(match[2]) } : undefined;
}

/**
 * 共享: read-only shares of one file or folder with users and organisations (picked on the
 * organisation–user tree) and roles; saving sets exactly the chosen targets.
 */
export function ShareDialog({
  item,
  onClose,
  onShare,
}: {
  item: (NetdiscItemRef & { name: string }) | undefined;
  onClose: () => void;
  onShare: (targets: { type: NetdiscTargetType; id: number }[]) => Promise<unknown>;
}) {
  const t = useT();
  const isOpen = item !== undefined;
  const current = useApiGet<ShareTarget[]>(
    withQuery(`${NETDISC_API}/shares`, { type: item?.type, id: item?.id }),
    undefined,
    isOpen,
  );
  const orgUsers = useApiGet<OrgUserNode[]>(`${API.org}/queryOrgUserTree`, undefined, isOpen);
  const roles = useApiGet<RoleOption[]>(`${API.role}/queryRoleName`, undefined, isOpen);
  const [people, setPeople] = useState<string[] | undefined>(undefined);
  const [roleValues, setRoleValues] = useState<string[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    setPeople(undefined);
    setRoleValues(undefined);
    setError(undefined);
  }, [item]);
  const shared = current.data ?? [];
  const peopleOptions = useMemo(() => orgUserOptions(orgUsers.data ?? []), [orgUsers.data]);
  const titles = useMemo(() => {
    const map = new Map<string, string>(shared.map((target) => [targetValue(target), target.name]));
    const walk = (options: readonly TreeOption[]): void => {
      for (const option of options) {
        map.set(option.value, option.title);
        walk(option.children);
      }
    };
    walk(peopleOptions);
    return map;
  }, [shared, peopleOptions]);
  const chosenPeople = people ?? shared.filter((target) => target.type !== 'role').map(targetValue);
  const chosenRoles = roleValues ?? shared.filter((target) => target.type === 'role').map(targetValue);
  const submit = async (): Promise<void> => {
    const targets = [...chosenPeople, ...chosenRoles].flatMap((value) => {
      const target = targetOf(value);
      return target ? [target] : [];
    });
    try {
      await onShare(targets);
      onClose();
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  return (
    <Modal
      open={isOpen}
      title={t('netdiscUi.shareTitle', { name: item?.name ?? '' })}
      okText={t('admin.crud.save')}
      cancelText={t('admin.common.cancel')}
      onOk={() => void submit()}
      onCancel={onClose}
      confirmLoading={current.isLoading}
      destroyOnHidden
    >
      <Typography.Paragraph type="secondary">{t('netdiscUi.shareHint')}</Typography.Paragraph>
      {error ? <Alert type="error" showIcon message={error} className="netdisc-dialog-error" /> : null}
      <Form layout="vertical">
        <Form.Item label={t('netdiscUi.shareUsers')} htmlFor="netdisc-share-people">
          <TreeSelect
            id="netdisc-share-people"
            multiple
            treeCheckable
            // An organisation ticked is a share with the organisation (its members to come
            // included); users ticked one by one stay shares with those users.
            treeCheckStrictly
            treeData={peopleOptions}
            value={chosenPeople.map((value) => ({ value, label: titles.get(value) ?? value }))}
            onChange={(values: { value: string }[]) => setPeople(values.map((entry) => entry.value))}
            treeNodeFilterProp="title"
            showSearch
            loading={orgUsers.isLoading}
            placeholder={t('netdiscUi.shareUsersPlaceholder')}
            data-testid="netdisc-share-people"
          />
        </Form.Item>
        <Form.Item label={t('netdiscUi.shareRoles')} htmlFor="netdisc-share-roles">
          <Select<string[]>
            id="netdisc-share-roles"
            mode="multiple"
            options={(roles.data ?? []).map((role) => ({
              value: `role:${role.id}`,
              label: roleLabel(role),
            }))}
            value={chosenRoles}
            onChange={(values) => setRoleValues(values)}
            optionFilterProp="label"
            loading={roles.isLoading}
            placeholder={t('netdiscUi.shareRolesPlaceholder')}
            data-testid="netdisc-share-roles"
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
