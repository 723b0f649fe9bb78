import type { ReactNode } from 'react';
import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { errorText } from '../data/errors.js';
import { Button } from './controls.js';

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <header className="page-header">
      <h1>{title}</h1>
      <div className="page-actions">{children}</div>
    </header>
  );
}

/** A failed call, said in words, announced to screen readers. */
export function ErrorBanner({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <div role="alert" className="banner banner-error">
      {errorText(error)}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="muted" role="status">
      {label}
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

/**
 * A list's three states: Loading while `pending`, the `empty` message when `items` has none, else
 * the list itself (`children`). `items` not there yet (a failed call) counts as not empty.
 */
export function ListState({ pending, items, empty, children }: { pending: boolean; items: readonly unknown[] | undefined; empty: ReactNode; children: ReactNode }) {
  if (pending) return <Loading />;
  if (items?.length === 0) return <Empty>{empty}</Empty>;
  return <>{children}</>;
}

interface PagerProps {
  page: number;
  pages: number | null;
  total?: number | null;
  onPage(page: number): void;
  /** First and (when the number of pages is known) Last besides Previous and Next. */
  withEnds?: boolean;
  className?: string;
  /** More controls at the end (the contents list's jump to a page). */
  children?: ReactNode;
}

export function Pager({ page, pages, onPage, total, withEnds = false, className, children }: PagerProps) {
  return (
    <nav className={className ? `pager ${className}` : 'pager'} aria-label="Pages">
      {withEnds && (
        <Button variant="ghost" isDisabled={page <= 1} onPress={() => onPage(1)}>
          First
        </Button>
      )}
      <Button variant="ghost" isDisabled={page <= 1} onPress={() => onPage(page - 1)}>
        Previous
      </Button>
      <span aria-live="polite">
        Page {page}
        {pages ? ` of ${pages}` : ''}
        {total !== undefined && total !== null ? ` · ${total} items` : ''}
      </span>
      <Button variant="ghost" isDisabled={pages !== null && page >= pages} onPress={() => onPage(page + 1)}>
        Next
      </Button>
      {withEnds && pages !== null && (
        <Button variant="ghost" isDisabled={page >= pages} onPress={() => onPage(pages)}>
          Last
        </Button>
      )}
      {children}
    </nav>
  );
}

/** A modal dialog, open while `isOpen`; Escape and the Close button call `onClose`. */
export function ModalDialog({ title, isOpen, onClose, role, children }: { title: string; isOpen: boolean; onClose(): void; role?: 'dialog' | 'alertdialog'; children: ReactNode }) {
  return (
    <ModalOverlay className="modal-overlay" isOpen={isOpen} onOpenChange={(open) => !open && onClose()} isDismissable>
      <Modal className="modal">
        <Dialog className="dialog" role={role}>
          <Heading slot="title">{title}</Heading>
          {children}
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
