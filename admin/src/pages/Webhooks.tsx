import { PageHeader } from '../ui/feedback.js';

export function WebhooksPage() {
  return <PageHeader title="Webhooks" />;
}
