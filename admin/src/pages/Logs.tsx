import { PageHeader } from '../ui/feedback.js';

export function LogsPage() {
  return <PageHeader title="Request logs" />;
}
