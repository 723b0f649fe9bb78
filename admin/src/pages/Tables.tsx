import { PageHeader } from '../ui/feedback.js';

export function TablesPage() {
  return <PageHeader title="Tables and columns" />;
}
