import type { Logger } from '../src/shared/logger.js';

/**
 * Runs `step` again and again: at once while it reports a full batch (more is waiting), else
 * after `idleMs`. A failed step is logged and retried after the pause. `stop` waits for the step
 * in progress, so a graceful shutdown never cuts one in half.
 */
export function startLoop(step: () => Promise<{ full: boolean }>, idleMs: number, logger: Logger): { stop(): Promise<void> } {
  let stopping = false;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (!stopping) {
      let full = false;
      try {
        ({ full } = await step());
      } catch (error) {
        logger.error({ err: error }, 'worker step failed; retrying');
      }
      if (!full && !stopping) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, idleMs);
        });
      }
    }
  })();
  return {
    stop: async () => {
      stopping = true;
      wake?.();
      await loop;
    },
  };
}
