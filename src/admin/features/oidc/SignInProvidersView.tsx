import { LoginOutlined } from '@ant-design/icons';
import { Alert, Button, Divider, Flex } from 'antd';
import type { OidcProviderButton } from '../../../engine/api-types.js';
import { useT } from '../../i18n.js';

/** The sign-in page's providers row as shown (SignInProviders holds its state and calls). */
export default function SignInProvidersView({
  providers,
  problem,
  leaving,
  onStart,
}: {
  providers: OidcProviderButton[];
  problem: string | undefined;
  leaving: number | undefined;
  onStart: (provider: OidcProviderButton) => Promise<void>;
}) {
  const t = useT();
  return (
    <div className="admin-login-sso" data-testid="login-sso">
      {problem && (
        <Alert
          type="error"
          showIcon
          message={problem}
          style={{ marginBottom: 12 }}
          data-testid="login-sso-error"
        />
      )}
      {providers.length > 0 && (
        <>
          <Divider plain>{t('oidc.otherWays')}</Divider>
          <Flex vertical gap={8}>
            {providers.map((provider) => (
              <Button
                key={provider.id}
                block
                icon={<LoginOutlined />}
                loading={leaving === provider.id}
                onClick={() => void onStart(provider)}
                data-testid="login-sso-provider"
              >
                {t('oidc.signInWith', { name: provider.name })}
              </Button>
            ))}
          </Flex>
        </>
      )}
    </div>
  );
}
