import { Navigate, Route, Routes } from 'react-router';
import { ProjectShell, SignedInShell, WorkspaceMain } from './layout/Shell.js';
import { ApiKeysPage } from './pages/ApiKeys.js';
import { ContentEditorPage } from './pages/ContentEditor.js';
import { ContentsListPage } from './pages/ContentsList.js';
import { LogsPage } from './pages/Logs.js';
import { MetricsPage } from './pages/Metrics.js';
import { ProjectsPage } from './pages/Projects.js';
import { SignInPage } from './pages/SignIn.js';
import { TablesPage } from './pages/Tables.js';
import { WebhooksPage } from './pages/Webhooks.js';
import { WorkspacesPage } from './pages/Workspaces.js';
import { useSessionState } from './session.js';

/**
 * Every page has its own address under /admin (the server answers index.html for each), so that
 * a reload, a bookmark or a link shared with a colleague opens the same page.
 */
export function App() {
  const { session } = useSessionState();
  if (!session) return <SignInPage />;
  return (
    <Routes>
      <Route element={<SignedInShell />}>
        <Route element={<WorkspaceMain />}>
          <Route index element={<WorkspacesPage />} />
          <Route path="w/:workspaceId" element={<ProjectsPage />} />
          <Route path="w/:workspaceId/metrics" element={<MetricsPage />} />
        </Route>
        <Route path="w/:workspaceId/p/:projectId" element={<ProjectShell />}>
          <Route index element={<Navigate to="tables" replace />} />
          <Route path="tables" element={<TablesPage />} />
          <Route path="tables/:tableId" element={<ContentsListPage />} />
          <Route path="tables/:tableId/rows/:contentId" element={<ContentEditorPage />} />
          <Route path="keys" element={<ApiKeysPage />} />
          <Route path="webhooks" element={<WebhooksPage />} />
          <Route path="logs" element={<LogsPage />} />
          <Route path="metrics" element={<MetricsPage />} />
        </Route>
        <Route path="*" element={<Navigate to="/" replace />} />
      </Route>
    </Routes>
  );
}
