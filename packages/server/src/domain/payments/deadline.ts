/**
 * Shared by live connectors (next to the port): our own outer deadline around an SDK call,
 * whatever the SDK does with its own timeout. A call past its deadline may still reach the
 * acquirer: its outcome is unknown, never a failure (decision 0041).
 */
export class DeadlinePassed extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'DeadlinePassed';
  }
}

export async function withDeadline<T>(ms: number, call: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlinePassed(ms)), ms);
  });
  try {
    return await Promise.race([call(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `call` and, when its answer is lost (`retryable`), once more with the same
 * idempotency key: the acquirer then answers the first request's result or does it once.
 */
export async function retryOnce<T>(call: () => Promise<T>, retryable: (error: unknown) => boolean): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!retryable(error)) throw error;
    return call();
  }
}
