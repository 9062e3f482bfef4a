import { Connection } from '@temporalio/client';

export interface FrontendReadinessOptions {
  address: string;
  namespace: string;
  /** Custom search attributes that must be registered before the server counts as ready. */
  searchAttributeNames?: readonly string[];
  /** Bound for one attempt (connect plus calls). */
  attemptTimeoutMs?: number;
}

/**
 * One readiness check: connects and asks for the namespace and its search attributes, because a
 * listening port alone does not mean the namespace exists yet. Resolves to undefined when
 * ready, else to the reason it is not.
 */
export async function checkFrontend(options: FrontendReadinessOptions): Promise<string | undefined> {
  const timeoutMs = options.attemptTimeoutMs ?? 2_000;
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address: options.address, connectTimeout: timeoutMs });
    const service = connection;
    const deadline = Date.now() + timeoutMs;
    await service.withDeadline(deadline, () =>
      service.workflowService.describeNamespace({ namespace: options.namespace }),
    );
    const wanted = options.searchAttributeNames ?? [];
    if (wanted.length === 0) return undefined;
    const { customAttributes } = await service.withDeadline(deadline, () =>
      service.operatorService.listSearchAttributes({ namespace: options.namespace }),
    );
    const missing = wanted.filter((name) => !(customAttributes && name in customAttributes));
    return missing.length ? `search attributes not registered yet: ${missing.join(', ')}` : undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    await connection?.close();
  }
}

export interface WaitForFrontendOptions extends FrontendReadinessOptions {
  timeoutMs: number;
  /** Called between attempts; returns why waiting is pointless (e.g. the process exited). */
  giveUpReason?: () => string | undefined;
}

/** Polls {@link checkFrontend} until ready; rejects with the last reason on timeout. */
export async function waitForFrontend(options: WaitForFrontendOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let lastReason = 'no attempt made';
  while (Date.now() < deadline) {
    const giveUp = options.giveUpReason?.();
    if (giveUp) throw new Error(giveUp);
    const reason = await checkFrontend(options);
    if (reason === undefined) return;
    lastReason = reason;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(
    `Temporal frontend at ${options.address} not ready after ${options.timeoutMs} ms (last: ${lastReason})`,
  );
}
