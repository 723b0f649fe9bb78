import { createContext, Suspense, useContext } from 'react';
import { Link, NavLink, Outlet, useNavigate, useParams } from 'react-router';
import type { RouterOutputs } from 'tabula/client';
import { useApi } from '../query.js';
import { useProjectEvents } from '../realtime.js';
import { useSessionState } from '../session.js';
import { Button, SelectInput } from '../ui/controls.js';
import { ErrorBanner, Loading } from '../ui/feedback.js';

export type Project = RouterOutputs['projects']['get'];
export type Workspace = RouterOutputs['workspaces']['get'];

/** Lists the console shows in a switcher or a picker: the API's largest page. */
export const ALL = { page: 1, size: 1000 } as const;

/** The top bar (workspace and project switchers, the account) around every signed-in page. */
export function SignedInShell() {
  const { signOut } = useSessionState();
  const { workspaceId, projectId } = useParams();
  const navigate = useNavigate();
  const me = useApi(['me'], (client) => client.accounts.me.query({}));
  const workspaces = useApi(['workspaces'], (client) => client.workspaces.list.query(ALL));
  const projects = useApi(['workspace', workspaceId, 'projects'], (client) => client.projects.list.query({ workspaceId: workspaceId!, ...ALL }), { enabled: !!workspaceId });
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

const ProjectContext = createContext<Project | null>(null);

/** The open project (its locales, its default locale), for pages under /w/:workspaceId/p/:projectId. */
export function useProject(): Project {
  const project = useContext(ProjectContext);
  if (!project) throw new Error('useProject outside ProjectShell');
  return project;
}

/** A project's pages: the navigation on the side, live updates from its event feed. */
export function ProjectShell() {
  const { workspaceId, projectId } = useParams();
  const project = useApi(['project', projectId, 'settings'], (client) => client.projects.get.query({ workspaceId: workspaceId!, projectId: projectId! }));
  const tables = useApi(['project', projectId, 'tables', 'list'], (client) => client.tables.list.query({ projectId: projectId!, ...ALL }));
  useProjectEvents(projectId);
  if (project.error) return <ErrorBanner error={project.error} />;
  if (!project.data) return <Loading />;
  const base = `/w/${workspaceId}/p/${projectId}`;
  return (
    <ProjectContext.Provider value={project.data}>
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
          <NavLink to={`${base}/keys`}>API keys</NavLink>
          <NavLink to={`${base}/webhooks`}>Webhooks</NavLink>
          <NavLink to={`${base}/logs`}>Request logs</NavLink>
          <NavLink to={`${base}/metrics`}>Usage</NavLink>
        </nav>
        <main id="main" className="content">
          <Suspense fallback={<Loading />}>
            <Outlet />
          </Suspense>
        </main>
      </div>
    </ProjectContext.Provider>
  );
}

/** The pages outside a project (workspaces, projects, a workspace's usage). */
export function WorkspaceMain() {
  return (
    <main id="main" className="content content-wide">
      <Suspense fallback={<Loading />}>
        <Outlet />
      </Suspense>
    </main>
  );
}
