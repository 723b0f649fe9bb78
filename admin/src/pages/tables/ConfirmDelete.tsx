import type { ReactNode } from 'react';
import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { Button } from '../../ui/controls.js';
import { ErrorBanner } from '../../ui/feedback.js';

/**
 * Asks before a delete that cannot be undone (an alert dialog: focus starts on Cancel, Escape
 * cancels). The failure, if any, is said inside the dialog.
 */
export function ConfirmDelete({ title, children, confirmLabel, onConfirm, onClose, isPending, error }: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm(): void;
  onClose(): void;
  isPending: boolean;
  error: unknown;
}) {
  return (
    <ModalOverlay className="modal-overlay" isOpen onOpenChange={(open) => !open && onClose()} isDismissable>
      <Modal className="modal">
        <Dialog className="dialog" role="alertdialog">
          <Heading slot="title">{title}</Heading>
          {children}
          <ErrorBanner error={error} />
          <div className="dialog-actions">
            <Button autoFocus onPress={onClose}>
              Cancel
            </Button>
            <Button variant="danger" isDisabled={isPending} onPress={onConfirm}>
              {confirmLabel}
            </Button>
          </div>
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
