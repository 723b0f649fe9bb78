import { PageHeader } from '../ui/feedback.js';

export function ApiKeysPage() {
  return <PageHeader title="API keys" />;
}
