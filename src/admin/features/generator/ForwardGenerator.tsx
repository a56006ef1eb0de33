import { DownloadOutlined, EyeOutlined } from '@ant-design/icons';
import { useDataProvider } from '@refinedev/core';
import { App, Button, Card, Empty, Flex, Form, Input, Select, Tree } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import type { GeneratedFile } from '../../../engine/api-types.js';
import { detailFields } from '../../../engine/index.js';
import type { DownloadedFile } from '../../providers/data.js';
import { loadResources } from '../../providers/resources.js';
import { routeTitle, useT } from '../../i18n.js';
import type { AppRoute } from '../../lib/menus.js';
import { useApiWrite } from '../../lib/api.js';
import { errorText } from '../../lib/screen-parts.js';
import { CodeView } from './CodeView.js';
import './codegen.css';

interface ForwardForm {
  entities: string[];
  serviceName: string;
  packageName: string;
  templateType?: string;
  /** Master-detail layout; sent only while a chosen entity has detail rows. */
  detailLayout?: DetailLayout;
}

type DetailLayout = 'form' | 'inner' | 'tab';
const DETAIL_LAYOUTS: readonly DetailLayout[] = ['form', 'inner', 'tab'];

interface FileNode {
  key: string;
  title: string;
  isLeaf?: boolean;
  children?: FileNode[];
}

/** The file tree of generated paths (folders first-level by package, then entity). */
function treeOf(files: GeneratedFile[]): FileNode[] {
  const root: FileNode[] = [];
  for (const file of files) {
    const parts = file.path.split('/');
    let level = root;
    parts.forEach((part, index) => {
      const key = parts.slice(0, index + 1).join('/');
      let node = level.find((candidate) => candidate.key === key);
      if (!node) {
        node =
          index === parts.length - 1
            ? { key, title: part, isLeaf: true }
            : { key, title: part, children: [] };
        level.push(node);
      }
      level = node.children ?? [];
    });
  }
  return root;
}

function save(file: DownloadedFile): void {
  const url = URL.createObjectURL(file.blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = file.fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Forward generator (docs/product.md §2.3 forwardgenerator): pick entities, preview the module as a file
 * tree with highlighted code, download it as a zip.
 */
export default function ForwardGenerator({ route }: { route: AppRoute }) {
  const t = useT();
  const { message } = App.useApp();
  const [form] = Form.useForm<ForwardForm>();
  const [entities, setEntities] = useState<string[]>([]);
  /** The entities with detail (x-detail, array-of-object) fields: the layout picker is theirs. */
  const [masterDetail, setMasterDetail] = useState<ReadonlySet<string>>(new Set());
  const [files, setFiles] = useState<GeneratedFile[]>([]);
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const [isDownloading, setDownloading] = useState(false);
  const { send, isSending } = useApiWrite();
  const provider = useDataProvider()();

  useEffect(() => {
    void loadResources().then((resources) => {
      setEntities([...resources.keys()].sort());
      setMasterDetail(
        new Set(
          [...resources.values()]
            .filter((resource) => resource.entity && detailFields(resource.entity).length > 0)
            .map((resource) => resource.name),
        ),
      );
    });
  }, []);
  const chosen = Form.useWatch('entities', form);
  const hasDetails = (chosen ?? []).some((name) => masterDetail.has(name));

  /** The form's values as the request takes them: the layout only for a master-detail entity. */
  const request = async (): Promise<ForwardForm> => {
    const { detailLayout, ...values } = await form.validateFields();
    return hasDetails && detailLayout ? { ...values, detailLayout } : values;
  };

  const preview = async (): Promise<void> => {
    const values = await request();
    try {
      // the server renders within its own template budget (10 s), past the client's usual 5 s
      const answer = await send<{ files: GeneratedFile[] }>(
        'post',
        '/api/generator/forward/preview',
        values,
        {
          timeoutMs: 30_000,
        },
      );
      setFiles(answer.files);
      setSelected(
        answer.files.find((file) => file.path.endsWith('service.ts'))?.path ?? answer.files[0]?.path,
      );
    } catch (error) {
      void message.error(errorText(error));
    }
  };

  const download = async (): Promise<void> => {
    const values = await request();
    setDownloading(true);
    try {
      const answer = await provider.custom?.({
        url: '/api/generator/forward/download',
        method: 'post',
        payload: values,
        meta: { download: true },
      });
      if (answer) save(answer.data as unknown as DownloadedFile);
    } catch (error) {
      void message.error(errorText(error));
    } finally {
      setDownloading(false);
    }
  };

  const tree = useMemo(() => treeOf(files), [files]);
  const file = files.find((candidate) => candidate.path === selected);
  const label = (key: string): string => t(`codegen.forward.${key}`);

  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      <Form<ForwardForm>
        form={form}
        layout="inline"
        initialValues={{ serviceName: 'app', packageName: 'app', entities: [], detailLayout: 'form' }}
        className="admin-screen-toolbar"
      >
        <Form.Item
          name="entities"
          label={label('entities')}
          // A validator rather than `required`: antd would put aria-required on the multiple select's
          // wrapper, where it is not allowed (axe).
          rules={[
            {
              validator: (_rule, value: unknown) =>
                Array.isArray(value) && value.length > 0
                  ? Promise.resolve()
                  : Promise.reject(new Error(label('empty'))),
            },
          ]}
        >
          <Select
            mode="multiple"
            className="codegen-entities"
            style={{ minWidth: 280 }}
            options={entities.map((name) => ({
              value: name,
              label: `${t(`entities.${name}.title`, { defaultValue: name })} (${name})`,
            }))}
          />
        </Form.Item>
        <Form.Item
          name="serviceName"
          label={label('serviceName')}
          rules={[{ required: true, pattern: /^[a-z][a-z0-9-]{0,39}$/, message: label('namePattern') }]}
        >
          <Input data-testid="forward-service" />
        </Form.Item>
        <Form.Item
          name="packageName"
          label={label('packageName')}
          rules={[{ required: true, pattern: /^[a-z][a-z0-9-]{0,39}$/, message: label('namePattern') }]}
        >
          <Input data-testid="forward-package" />
        </Form.Item>
        <Form.Item name="templateType" label={label('templateType')}>
          <Select
            allowClear
            style={{ minWidth: 140 }}
            aria-label={label('templateType')}
            placeholder={label('allTypes')}
            options={['backend', 'frontend', 'sql'].map((value) => ({
              value,
              label: t(`dicts.template_type.${value}`, { defaultValue: value }),
            }))}
          />
        </Form.Item>
        {hasDetails && (
          <Form.Item name="detailLayout" label={label('detailLayout')}>
            <Select
              style={{ minWidth: 150 }}
              aria-label={label('detailLayout')}
              data-testid="forward-detail-layout"
              options={DETAIL_LAYOUTS.map((value) => ({ value, label: label(`layouts.${value}`) }))}
            />
          </Form.Item>
        )}
        <Button
          type="primary"
          icon={<EyeOutlined />}
          loading={isSending}
          onClick={() => void preview()}
          data-testid="forward-preview"
        >
          {label('preview')}
        </Button>
        <Button
          icon={<DownloadOutlined />}
          loading={isDownloading}
          onClick={() => void download()}
          data-testid="forward-download"
        >
          {label('download')}
        </Button>
      </Form>
      {files.length === 0 ? (
        <Empty description={label('empty')} />
      ) : (
        <Flex gap={16} align="start">
          <div className="codegen-files" data-testid="forward-files">
            <Tree.DirectoryTree
              treeData={tree}
              defaultExpandAll
              selectedKeys={selected ? [selected] : []}
              onSelect={(keys, info) => {
                if (info.node.isLeaf) setSelected(String(keys[0]));
              }}
            />
          </div>
          <div style={{ flex: 1, minWidth: 0 }}>
            <h3 data-testid="forward-file-path">{file?.path}</h3>
            {file && <CodeView code={file.content} path={file.path} testId="forward-code" />}
          </div>
        </Flex>
      )}
    </Card>
  );
}
