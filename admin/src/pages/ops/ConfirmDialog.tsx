import type { ReactNode } from 'react';
import { Button } from '../../ui/controls.js';
import { ErrorBanner, ModalDialog } from '../../ui/feedback.js';

/** "Are you sure?" before a change that cannot be undone; the error of a failed attempt stays in the dialog. */
export function ConfirmDialog({
  title,
  isOpen,
  confirmLabel,
  onConfirm,
  onClose,
  isPending,
  error,
  children,
}: {
  title: string;
  isOpen: boolean;
  confirmLabel: string;
  onConfirm(): void;
  onClose(): void;
  isPending?: boolean;
  error?: unknown;
  children: ReactNode;
}) {
  return (
    <ModalDialog title={title} isOpen={isOpen} onClose={onClose}>
      <div className="stack">{children}</div>
      <ErrorBanner error={error} />
      <div className="dialog-actions">
        <Button onPress={onClose}>Cancel</Button>
        <Button variant="danger" onPress={onConfirm} isDisabled={isPending}>
          {confirmLabel}
        </Button>
      </div>
    </ModalDialog>
  );
}
