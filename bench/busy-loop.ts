/**
 * A process that keeps one core busy on its parent's request, for bench/releases.ts: the control
 * against which a publish's effect on other reads is compared. `{ busyMs }` spins for that long
 * and answers `{ done }` (how many turns the loop made). It shares nothing with the API (no lock,
 * no connection, no event loop): what it does to the reads is what any job using one core for
 * that long does on this machine.
 */
process.on('message', ({ busyMs }: { busyMs: number }) => {
  const until = performance.now() + busyMs;
  let spins = 0;
  while (performance.now() < until) spins++;
  process.send!({ done: spins });
});
