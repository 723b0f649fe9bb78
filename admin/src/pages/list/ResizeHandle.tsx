import type { CSSProperties } from 'react';
import { clampWidth } from './column-prefs.js';
import type { Shown } from './shown-columns.js';

/**
 * A header's right edge, dragged with the mouse (or a pen, a finger) to set its column's width.
 * It is hidden from assistive technology and out of the tab order: the keyboard sets the same
 * width in the Columns panel (ColumnsPanel.tsx). While it is dragged only the header's own style
 * follows the pointer; the width is stored, and the column's cells take it, on release.
 */
export function ResizeHandle({ onWidth }: { onWidth(px: number): void }) {
  return (
    <span
      className="list-resize"
      aria-hidden="true"
      onPointerDown={(event) => {
        if (event.button !== 0) return;
        event.preventDefault();
        event.stopPropagation();
        const handle = event.currentTarget;
        const header = handle.closest('th');
        if (!header) return;
        const startX = event.clientX;
        const startWidth = header.getBoundingClientRect().width;
        let width = startWidth;
        handle.setPointerCapture(event.pointerId);
        const move = (e: PointerEvent) => {
          width = clampWidth(startWidth + e.clientX - startX);
          // Style set through the CSSOM, which the console's Content-Security-Policy allows.
          header.style.width = header.style.minWidth = header.style.maxWidth = `${width}px`;
        };
        const up = () => {
          handle.removeEventListener('pointermove', move);
          handle.removeEventListener('pointerup', up);
          handle.removeEventListener('pointercancel', up);
          if (width !== startWidth) onWidth(width);
        };
        handle.addEventListener('pointermove', move);
        handle.addEventListener('pointerup', up);
        handle.addEventListener('pointercancel', up);
      }}
      onClick={(event) => event.stopPropagation()}
    />
  );
}

/** A cell's class and style for its column's width: fixed when one is set, its values' otherwise. */
export function sizeOf(column: Shown, className?: string): { className?: string; style?: CSSProperties } {
  if (!column.width) return { className };
  const px = `${column.width}px`;
  return { className: className ? `${className} list-sized` : 'list-sized', style: { width: px, minWidth: px, maxWidth: px } };
}
