import { Suspense } from 'react';
import { Link, NavLink, Outlet, useNavigate, useParams } from 'react-router';
import { PageErrorBoundary } from './PageErrorBoundary.js';
import { useApi } from '../data/api.js';
import { fileKeys } from '../data/files/keys.js';
import { useMyAccess } from '../data/projects/access.js';
import { ProjectProvider } from '../data/projects/context.js';
import { useProjectDetail, useProjects } from '../data/projects/queries.js';
import { useProjectEvents } from '../data/realtime.js';
import { useMe } from '../data/session/queries.js';
import { useSessionState } from '../data/session/session.js';
import { useTables } from '../data/tables/queries.js';
import { useWorkspaces } from '../data/workspaces/queries.js';
import { Button, SelectInput } from '../ui/controls.js';
import { ErrorBanner, Loading } from '../ui/feedback.js';

/** The top bar (workspace and project switchers, the account) around every signed-in page. */
export function SignedInShell() {
  const { signOut } = useSessionState();
  const { workspaceId, projectId } = useParams();
  const navigate = useNavigate();
  const me = useMe();
  const workspaces = useWorkspaces();
  const projects = useProjects(workspaceId, { enabled: !!workspaceId });
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          Tabula
        </Link>
        <div className="switchers">
          {workspaces.data && (
            <SelectInput
              label="Workspace"
              value={workspaceId ?? null}
              placeholder="Choose a workspace"
              options={workspaces.data.list.map((w) => ({ id: w.id, label: w.name }))}
              onChange={(id) => navigate(`/w/${id}`)}
            />
          )}
          {workspaceId && projects.data && (
            <SelectInput
              label="Project"
              value={projectId ?? null}
              placeholder="Choose a project"
              options={projects.data.list.map((p) => ({ id: p.id, label: p.name }))}
              onChange={(id) => navigate(`/w/${workspaceId}/p/${id}/tables`)}
            />
          )}
        </div>
        <div className="account">
          <span className="muted">{me.data?.email}</span>
          <Button variant="ghost" onPress={signOut}>
            Sign out
          </Button>
        </div>
      </header>
      <ErrorBanner error={me.error} />
      <Outlet />
    </div>
  );
}

/** A project's pages: the navigation on the side, live updates from its event feed, the project for useProject. */
export function ProjectShell() {
  const { workspaceId, projectId } = useParams();
  const project = useProjectDetail(workspaceId!, projectId!);
  const tables = useTables(projectId!);
  const access = useMyAccess(workspaceId!, projectId!);
  // A custom role reads the file library only with a `$files` rule: one file asked tells.
  const filesProbe = useApi(fileKeys.page(projectId!, '', 1, 1), (client) => client.files.list.query({ projectId: projectId!, page: 1, size: 1, withCount: 'false' }), {
    enabled: access.customRoleId !== null,
  });
  useProjectEvents(projectId);
  if (project.error) return <ErrorBanner error={project.error} />;
  if (!project.data) return <Loading />;
  const base = `/w/${workspaceId}/p/${projectId}`;
  // What the member may not do is not offered (docs/console.md#what-a-member-sees).
  const builtIn = access.ready && access.customRoleId === null;
  const files = builtIn || filesProbe.isSuccess;
  return (
    <ProjectProvider value={project.data}>
      <div className="project">
        <nav className="sidebar" aria-label="Project">
          <NavLink to={`${base}/tables`} end>
            Tables and columns
          </NavLink>
          {tables.data && tables.data.list.length > 0 && (
            <ul aria-label="Contents by table">
              {tables.data.list.map((table) => (
                <li key={table.id}>
                  <NavLink to={`${base}/tables/${table.id}`}>{table.name}</NavLink>
                </li>
              ))}
            </ul>
          )}
          {files && <NavLink to={`${base}/files`}>File library</NavLink>}
          {access.ready && (
            <>
              <NavLink to={`${base}/categories`}>Categories</NavLink>
              <NavLink to={`${base}/variables`}>Variables</NavLink>
              <NavLink to={`${base}/translations`}>Translations</NavLink>
            </>
          )}
          {access.canWrite && <NavLink to={`${base}/releases`}>Releases</NavLink>}
          {access.isAdmin && (
            <>
              <NavLink to={`${base}/members`}>Members</NavLink>
              <NavLink to={`${base}/roles`}>Roles</NavLink>
              <NavLink to={`${base}/schema`}>Schema</NavLink>
              <NavLink to={`${base}/keys`}>API keys</NavLink>
              <NavLink to={`${base}/webhooks`}>Webhooks</NavLink>
            </>
          )}
          {builtIn && <NavLink to={`${base}/logs`}>Request logs</NavLink>}
          {builtIn && <NavLink to={`${base}/metrics`}>Usage</NavLink>}
        </nav>
        <main id="main" className="content">
          <PageErrorBoundary>
            <Suspense fallback={<Loading />}>
              <Outlet />
            </Suspense>
          </PageErrorBoundary>
        </main>
      </div>
    </ProjectProvider>
  );
}

/** The pages outside a project (workspaces, projects, a workspace's usage). */
export function WorkspaceMain() {
  return (
    <main id="main" className="content content-wide">
      <PageErrorBoundary>
        <Suspense fallback={<Loading />}>
          <Outlet />
        </Suspense>
      </PageErrorBoundary>
    </main>
  );
}
