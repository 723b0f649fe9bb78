import { PageHeader } from '../ui/feedback.js';

export function ContentsListPage() {
  return <PageHeader title="Contents" />;
}
