import { useState, type ReactNode } from 'react';
import { Button } from './controls.js';
import { ErrorBanner, ModalDialog } from './feedback.js';

/**
 * "Are you sure?" before a change: a delete, a rotation, a restore. Focus starts on Cancel, so
 * Enter or Escape at once changes nothing, and returns to what opened the dialog when it closes.
 * The confirm button is disabled while the change is pending; a failure (`error`) is said inside
 * the dialog, which stays open for another try.
 */
export function ConfirmDialog({
  title,
  isOpen,
  confirmLabel,
  cancelLabel = 'Cancel',
  pendingLabel = confirmLabel,
  confirmVariant = 'danger',
  role,
  onConfirm,
  onClose,
  isPending = false,
  error,
  children,
}: {
  title: string;
  isOpen: boolean;
  confirmLabel: string;
  /** The button that changes nothing (and has the focus first). */
  cancelLabel?: string;
  /** The confirm button's text while the change is pending. */
  pendingLabel?: string;
  /** `primary` for a change that can be undone. */
  confirmVariant?: 'danger' | 'primary';
  role?: 'dialog' | 'alertdialog';
  onConfirm(): void;
  onClose(): void;
  isPending?: boolean;
  error?: unknown;
  children: ReactNode;
}) {
  return (
    <ModalDialog title={title} isOpen={isOpen} onClose={onClose} role={role}>
      <div className="stack">{children}</div>
      <ErrorBanner error={error} />
      <div className="dialog-actions">
        <Button autoFocus onPress={onClose}>
          {cancelLabel}
        </Button>
        <Button variant={confirmVariant} isDisabled={isPending} onPress={onConfirm}>
          {isPending ? pendingLabel : confirmLabel}
        </Button>
      </div>
    </ModalDialog>
  );
}

/**
 * A button whose action runs only once the person confirms it. The dialog closes when the action
 * settles, whatever its outcome: the caller shows that (the row editor's notice and error summary).
 */
export function ConfirmButton({ label, isDisabled, onConfirm, ...dialog }: {
  label: string;
  title: string;
  confirmLabel: string;
  isDisabled?: boolean;
  onConfirm(): Promise<unknown>;
  children: ReactNode;
}) {
  const [isOpen, setOpen] = useState(false);
  const [isPending, setPending] = useState(false);
  const confirm = async () => {
    setPending(true);
    try {
      await onConfirm();
    } finally {
      setPending(false);
      setOpen(false);
    }
  };
  return (
    <>
      <Button variant="danger" isDisabled={isDisabled} onPress={() => setOpen(true)}>
        {label}
      </Button>
      <ConfirmDialog {...dialog} isOpen={isOpen} isPending={isPending} onConfirm={() => void confirm()} onClose={() => setOpen(false)} />
    </>
  );
}
