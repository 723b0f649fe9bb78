import { PageHeader } from '../ui/feedback.js';

export function ContentEditorPage() {
  return <PageHeader title="Edit contents" />;
}
