import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useBlocker } from 'react-router';
import { ConfirmDialog } from '../ui/ConfirmDialog.js';

/*
 * Unsaved edits and leaving the page (docs/console.md). A form with edits not yet saved says so
 * with `useUnsavedChanges`; one guard at the router then asks before any in-app navigation that
 * would unmount it: a link (sidebar, breadcrumbs, "All rows"), a switcher, the browser's back and
 * forward buttons, or a page's own `navigate()`. Closing or reloading the tab gets the browser's
 * own prompt (beforeunload), which is all a page may do there.
 */

interface Registry {
  /** Marks one form (by its key) as holding unsaved edits, or not. */
  set(form: symbol, dirty: boolean): void;
}

const RegistryContext = createContext<Registry | null>(null);

/** Around the app, inside the (data) router: the one place navigations are held back. */
export function LeaveGuard({ children }: { children: ReactNode }) {
  const dirty = useRef(new Set<symbol>());
  const registry = useMemo<Registry>(() => ({ set: (form, isDirty) => void (isDirty ? dirty.current.add(form) : dirty.current.delete(form)) }), []);
  // Read when a navigation starts, so a form marked clean just before its own navigate() passes.
  // A change of address state alone (a notice dropped from history) leaves the page as it is.
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      dirty.current.size > 0 && (currentLocation.pathname !== nextLocation.pathname || currentLocation.search !== nextLocation.search),
  );
  const isBlocked = blocker.state === 'blocked';
  return (
    <RegistryContext.Provider value={registry}>
      {children}
      <ConfirmDialog
        title="Leave without saving?"
        role="alertdialog"
        isOpen={isBlocked}
        cancelLabel="Stay"
        confirmLabel="Leave"
        onClose={() => blocker.reset?.()}
        onConfirm={() => {
          // The forms being left go with the page; none of them holds the next navigation back.
          dirty.current.clear();
          blocker.proceed?.();
        }}
      >
        <p>This page has changes that are not saved. Leave, and they are lost; stay, and you can save them.</p>
      </ConfirmDialog>
    </RegistryContext.Provider>
  );
}

/**
 * Declares a form's unsaved edits while `isDirty`. Returns `release`, for a navigation the form
 * makes itself once its edits are dealt with (a created or deleted row): call it just before.
 */
export function useUnsavedChanges(isDirty: boolean): () => void {
  const registry = useContext(RegistryContext);
  const [form] = useState(() => Symbol('form'));
  useEffect(() => {
    registry?.set(form, isDirty);
    return () => registry?.set(form, false);
  }, [registry, form, isDirty]);

  // Closing or reloading the tab with unsaved edits asks first (the browser's own prompt).
  useEffect(() => {
    if (!isDirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [isDirty]);

  return useCallback(() => registry?.set(form, false), [registry, form]);
}
