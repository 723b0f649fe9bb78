import { useState, type ReactNode } from 'react';
import { Button } from '../../ui/controls.js';
import { ModalDialog } from '../../ui/feedback.js';

/** A button whose action runs only once the person confirms it in a dialog (deletes, discards). */
export function ConfirmButton({ label, title, confirmLabel, children, onConfirm, isDisabled }: {
  label: string;
  title: string;
  confirmLabel: string;
  children: ReactNode;
  onConfirm(): Promise<unknown>;
  isDisabled?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      setBusy(false);
      setOpen(false);
    }
  };
  return (
    <>
      <Button variant="danger" isDisabled={isDisabled} onPress={() => setOpen(true)}>
        {label}
      </Button>
      <ModalDialog title={title} isOpen={open} onClose={() => setOpen(false)}>
        {children}
        <div className="dialog-actions">
          <Button onPress={() => setOpen(false)} autoFocus>
            Cancel
          </Button>
          <Button variant="danger" isDisabled={busy} onPress={() => void confirm()}>
            {confirmLabel}
          </Button>
        </div>
      </ModalDialog>
    </>
  );
}
