import { AdapterError, asAdapterError } from "../adapterError.js";

/**
 * C3: looks for events another process appended to a conversation every `everyMs` (one
 * look at a time). A store that is away fails every look: that is said once, and again
 * only after a look that worked. Returns the function that stops looking (and waits for
 * the look in progress).
 */
export function followConversation(
  conversationId: string,
  everyMs: number,
  catchUp: () => Promise<unknown>,
  report: (error: AdapterError) => void,
): () => Promise<void> {
  if (everyMs <= 0) return async () => {};
  let looking: Promise<unknown> | null = null;
  let failing = false;
  const timer = setInterval(() => {
    looking ??= catchUp()
      .then(
        () => {
          failing = false;
        },
        (error: unknown) => {
          if (!failing)
            report(
              new AdapterError(
                asAdapterError(error).code,
                `conversation ${conversationId}: could not look for events appended elsewhere: ${error instanceof Error ? error.message : String(error)}`,
                { cause: error },
              ),
            );
          failing = true;
        },
      )
      .finally(() => {
        looking = null;
      });
  }, everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await looking;
  };
}
