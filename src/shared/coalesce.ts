/**
 * Coalesces concurrent calls into batches ("group commit"). A call joins the queue; once per
 * turn of the event loop the queue is cut into batches of up to `maxBatch`, started while fewer
 * than `maxInFlight` run. No timer: an idle caller waits for nothing, a busy system writes in
 * batches as large as the calls that arrived while earlier batches ran.
 *
 * `run` answers one output per item, in order. If it throws, every call of that batch rejects
 * with the error (the caller decides whether to retry its item alone).
 */
export function coalesce<I, O>(run: (items: I[]) => Promise<O[]>, options: { maxBatch: number; maxInFlight: number }): (item: I) => Promise<O> {
  const queue: { item: I; resolve: (value: O) => void; reject: (error: unknown) => void }[] = [];
  let inFlight = 0;
  let scheduled = false;

  const start = () => {
    scheduled = false;
    while (inFlight < options.maxInFlight && queue.length > 0) {
      const batch = queue.splice(0, options.maxBatch);
      inFlight++;
      run(batch.map((entry) => entry.item))
        .then(
          (outputs) => batch.forEach((entry, i) => entry.resolve(outputs[i])),
          (error: unknown) => batch.forEach((entry) => entry.reject(error)),
        )
        .finally(() => {
          inFlight--;
          schedule();
        });
    }
  };
  // Calls that become ready in the same turn of the event loop (several sockets readable at
  // once) leave together.
  const schedule = () => {
    if (scheduled || queue.length === 0) return;
    scheduled = true;
    setImmediate(start);
  };

  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      schedule();
    });
}
