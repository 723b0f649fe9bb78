import { PageHeader } from '../ui/feedback.js';

export function MetricsPage() {
  return <PageHeader title="Usage" />;
}
