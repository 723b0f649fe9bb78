import type { Logger } from '../src/shared/logger.js';

/** What a step reports: whether its batch was full (more is waiting), and when work is known to come due. */
export interface StepResult {
  full: boolean;
  /** In how many ms the step knows work comes due (e.g. a scheduled time): the pause ends then if sooner. */
  nextInMs?: number | null;
}

/**
 * Runs `step` again and again: at once while it reports a full batch (more is waiting), else
 * after `idleMs`, or sooner when the step knows work comes due before that. A failed step is
 * logged and retried after the pause. `stop` waits for the step in progress, so a graceful
 * shutdown never cuts one in half.
 */
export function startLoop(step: () => Promise<StepResult>, idleMs: number, logger: Logger): { stop(): Promise<void> } {
  let stopping = false;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (!stopping) {
      let full = false;
      let pause = idleMs;
      try {
        const result = await step();
        full = result.full;
        if (result.nextInMs !== undefined && result.nextInMs !== null) pause = Math.min(idleMs, Math.max(0, Math.ceil(result.nextInMs)));
      } catch (error) {
        logger.error({ err: error }, 'worker step failed; retrying');
      }
      if (!full && !stopping) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, pause);
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
