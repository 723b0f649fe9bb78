import { createContext, useContext } from 'react';
import type { RouterOutputs } from 'tabula/client';

export type Project = RouterOutputs['projects']['get'];

const ProjectContext = createContext<Project | null>(null);

/** Gives the pages of a project the project they are in: layout/Shell.tsx's ProjectShell, once it is read. */
export const ProjectProvider = ProjectContext.Provider;

/** The open project (its locales, its default locale), for pages under /w/:workspaceId/p/:projectId. */
export function useProject(): Project {
  const project = useContext(ProjectContext);
  if (!project) throw new Error('useProject outside ProjectShell');
  return project;
}
