import { useId, useState, type FormEvent } from 'react';
import { Button } from '../../ui/controls.js';
import { Pager } from '../../ui/feedback.js';

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
    <Pager page={page} pages={pages} total={total} onPage={onPage} withEnds className="list-pager">
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
    </Pager>
  );
}
