import { useId, useState, type FormEvent } from 'react';
import { Button } from '../../ui/controls.js';

/**
 * The list's pages: previous and next, the first and the last page when their number is known,
 * and a jump to page N (docs/console.md, "Pages"). A page reached by a jump is read by its
 * number; the pages met by Next keep their keyset cursors (useContentsPage.ts).
 */
export function ListPager({ page, pages, total, onPage }: { page: number; pages: number | null; total?: number | null; onPage(page: number): void }) {
  const [wanted, setWanted] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const inputId = useId();
  const problemId = useId();
  const jump = (event: FormEvent) => {
    event.preventDefault();
    const n = Number(wanted);
    if (!Number.isInteger(n) || n < 1 || (pages !== null && n > pages)) {
      setProblem(pages !== null ? `Enter a page from 1 to ${pages}` : 'Enter a page number from 1');
      return;
    }
    setProblem(null);
    setWanted('');
    if (n !== page) onPage(n);
  };
  return (
    <nav className="pager list-pager" aria-label="Pages">
      <Button variant="ghost" isDisabled={page <= 1} onPress={() => onPage(1)}>
        First
      </Button>
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
      {pages !== null && (
        <Button variant="ghost" isDisabled={page >= pages} onPress={() => onPage(pages)}>
          Last
        </Button>
      )}
      <form className="list-jump" onSubmit={jump} noValidate>
        <label htmlFor={inputId}>Go to page</label>
        <input
          id={inputId}
          type="number"
          min={1}
          max={pages ?? undefined}
          value={wanted}
          aria-invalid={problem !== null}
          aria-describedby={problem ? problemId : undefined}
          onChange={(event) => setWanted(event.target.value)}
        />
        <Button type="submit">Go</Button>
        {problem && (
          <span id={problemId} className="field-error" role="alert">
            {problem}
          </span>
        )}
      </form>
    </nav>
  );
}
