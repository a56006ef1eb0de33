import assert from 'node:assert/strict';
import { untilStill } from './select.js';
import { apiClient, signedIn, type Check, type E2eContext } from './support.js';

/**
 * 部署流程文件 with a file an Activiti team brings (issue 36): a service task calling a Java class
 * is refused, the message naming it; with 把 Java 代码和脚本部署为外部任务 ticked the same file
 * deploys, the warning names the topic a worker fetches by, and a worker completes the task over
 * the API so the instance ends.
 */

const KEY = 'e2eCodeExternal';
const XML = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:activiti="http://activiti.org/bpmn" targetNamespace="e2e">
  <process id="${KEY}" name="E2E 外部代码" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="charge"/>
    <serviceTask id="charge" name="扣款" activiti:class="org.example.ChargeCard"/>
    <sequenceFlow id="f2" sourceRef="charge" targetRef="e"/>
    <endEvent id="e"/>
  </process>
</definitions>`;

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  return [
    {
      name: '部署流程文件: Java code refused, then deployed as an external task a worker completes',
      run: async () => {
        const { context, page } = await signedIn(browser, server, 'admin', server.adminPassword);
        try {
          await page.goto(`${server.url}/admin/deployment`);
          await page.getByTestId('wf-deployments').waitFor();
          await page.getByRole('button', { name: '部署流程文件' }).click();
          const dialog = page.getByRole('dialog');
          await dialog.locator('input[type=file]').setInputFiles({
            name: 'charge.bpmn20.xml',
            mimeType: 'text/xml',
            buffer: Buffer.from(XML),
          });
          await dialog.getByText('charge.bpmn20.xml').waitFor();
          const deploy = dialog
            .getByRole('button', { name: '部 署' })
            .or(dialog.getByRole('button', { name: '部署' }));
          await deploy.click();
          const refused = page.locator('.ant-message-error').filter({ hasText: 'org.example.ChargeCard' });
          await untilStill(refused);
          assert.match(await refused.innerText(), /charge（扣款）|charge \(扣款\)/);
          await page.screenshot({ path: `${screenshots}/deploy-file-refused.png` });

          await dialog.getByTestId('code-as-external').check();
          await deploy.click();
          const warned = page.locator('.ant-message-warning').filter({ hasText: '外部任务' });
          await untilStill(warned);
          assert.match(await warned.innerText(), /org\.example\.ChargeCard/);
          await page.screenshot({ path: `${screenshots}/deploy-file-external.png` });
          await dialog.waitFor({ state: 'hidden' });
          await page.getByTestId('wf-deployments').getByText('E2E 外部代码').first().waitFor();

          // A worker of the class's topic completes it; the instance ends.
          const api = await apiClient(server.url, 'admin', server.adminPassword);
          const started = await api.post<{ id: number }>('/api/activiti/processinstance/start', {
            processDefinitionKey: KEY,
            description: 'e2e',
          });
          const [task] = await api.post<{ id: number; activityId: string }[]>(
            '/api/activiti/externalTask/fetchAndLock',
            {
              workerId: 'e2e',
              maxTasks: 1,
              topics: [{ topicName: 'org.example.ChargeCard', lockDuration: 60_000 }],
            },
          );
          assert.equal(task?.activityId, 'charge');
          await api.post('/api/activiti/externalTask/complete', { id: task?.id, workerId: 'e2e' });
          const instance = await api.get<{ ended: boolean }>(
            `/api/activiti/processinstance/detail?id=${started.id}`,
          );
          assert.equal(instance.ended, true);
        } finally {
          await context.close();
        }
      },
    },
  ];
}
