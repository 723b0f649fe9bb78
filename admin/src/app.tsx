import { createBrowserRouter, Navigate, Route, Routes } from 'react-router';
import { LeaveGuard } from './layout/LeaveGuard.js';
import { ProjectShell, SignedInShell, WorkspaceMain } from './layout/Shell.js';
import { lazy } from 'react';
import { ProjectsPage } from './pages/projects/Projects.js';
import { SignInPage } from './pages/sign-in/SignIn.js';
import { WorkspacesPage } from './pages/workspaces/Workspaces.js';
import { useSessionState } from './data/session/session.js';

/**
 * The pages of a project load on first use, each its own chunk: the sign-in and the first lists
 * do not wait for the editor or the chart library (the shells show Loading meanwhile).
 */
const ApiKeysPage = lazy(() => import('./pages/api-keys/ApiKeys.js').then((m) => ({ default: m.ApiKeysPage })));
const ContentEditorPage = lazy(() => import('./pages/editor/ContentEditor.js').then((m) => ({ default: m.ContentEditorPage })));
const ContentsListPage = lazy(() => import('./pages/list/ContentsList.js').then((m) => ({ default: m.ContentsListPage })));
const LogsPage = lazy(() => import('./pages/logs/Logs.js').then((m) => ({ default: m.LogsPage })));
const MetricsPage = lazy(() => import('./pages/metrics/Metrics.js').then((m) => ({ default: m.MetricsPage })));
const ReleasesPage = lazy(() => import('./pages/releases/Releases.js').then((m) => ({ default: m.ReleasesPage })));
const ReleaseDetailPage = lazy(() => import('./pages/releases/ReleaseDetail.js').then((m) => ({ default: m.ReleaseDetailPage })));
const TablesPage = lazy(() => import('./pages/tables/Tables.js').then((m) => ({ default: m.TablesPage })));
const MembersPage = lazy(() => import('./pages/members/Members.js').then((m) => ({ default: m.MembersPage })));
const SchemaPage = lazy(() => import('./pages/schema/SchemaPage.js').then((m) => ({ default: m.SchemaPage })));
const TableIoPage = lazy(() => import('./pages/io/TableIo.js').then((m) => ({ default: m.TableIoPage })));
const RolesPage = lazy(() => import('./pages/roles/Roles.js').then((m) => ({ default: m.RolesPage })));
const loadFileLibrary = () => import('./pages/files/FileLibrary.js');
const FileLibraryPage = lazy(() => loadFileLibrary().then((m) => ({ default: m.FileLibraryPage })));
// Opened straight at the library (a reload, a link): its code loads beside the console's first
// calls instead of after the project is read, so its list is asked for as soon as it can be.
if (/\/p\/[^/]+\/files\/?$/.test(window.location.pathname)) void loadFileLibrary();
const CategoriesPage = lazy(() => import('./pages/categories/Categories.js').then((m) => ({ default: m.CategoriesPage })));
const VariablesPage = lazy(() => import('./pages/variables/Variables.js').then((m) => ({ default: m.VariablesPage })));
const TranslationsPage = lazy(() => import('./pages/translations/Translations.js').then((m) => ({ default: m.TranslationsPage })));
const WebhooksPage = lazy(() => import('./pages/webhooks/Webhooks.js').then((m) => ({ default: m.WebhooksPage })));

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
          <Route path="tables/:tableId/io" element={<TableIoPage />} />
          <Route path="files" element={<FileLibraryPage />} />
          <Route path="categories" element={<CategoriesPage />} />
          <Route path="variables" element={<VariablesPage />} />
          <Route path="translations" element={<TranslationsPage />} />
          <Route path="members" element={<MembersPage />} />
          <Route path="roles" element={<RolesPage />} />
          <Route path="schema" element={<SchemaPage />} />
          <Route path="releases" element={<ReleasesPage />} />
          <Route path="releases/:releaseId" element={<ReleaseDetailPage />} />
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

/**
 * The console's router: a data router (the history it keeps lets the leave guard hold back any
 * navigation, the back button's too) around the pages above, under /admin.
 */
export function createConsoleRouter() {
  return createBrowserRouter(
    [
      {
        path: '*',
        element: (
          <LeaveGuard>
            <App />
          </LeaveGuard>
        ),
      },
    ],
    { basename: '/admin' },
  );
}
