import type { FetchLike } from "@modelcontextprotocol/client";
import { AdapterError } from "../adapterError.js";
import {
  AuthorizationFailedError,
  findAuthorizationRequired,
} from "../oauth/authorizationRequiredError.js";
import type { Redactor } from "../redaction/redactor.js";

/** A4: what a connection needs of a server's OAuth client (see ServerAuthorizer). */
export interface ConnectionAuth {
  readonly fetch: FetchLike;
  /** The user must authorize the server now. */
  readonly required: boolean;
  /** The error that says so (for a failure whose cause the transport did not keep). */
  requiredError(): Error;
}

/** A4: an OAuth failure as the AdapterError the host acts on, or null for any other error. */
export function authorizationFailure(
  error: unknown,
  auth: ConnectionAuth | undefined,
  redactor: Redactor,
): AdapterError | null {
  const required =
    findAuthorizationRequired(error) ??
    (auth?.required ? findAuthorizationRequired(auth.requiredError()) : null);
  if (required) {
    return new AdapterError("AUTHORIZATION_REQUIRED", redactor.redact(required.message), {
      cause: error,
      authorized: required.authorized,
    });
  }
  for (let e = error, depth = 0; e instanceof Error && depth < 8; depth++) {
    if (e instanceof AuthorizationFailedError)
      return new AdapterError("AUTHORIZATION_FAILED", redactor.redact(e.message), {
        cause: error,
      });
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

/**
 * A4: sends a request, and once more when it was refused for a browser step (a step-up) that
 * the user finishes while the caller still waits (the refusal came before the tool ran).
 */
export async function sendAfterAuthorization<T>(
  send: () => Promise<T>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<T> {
  const started = Date.now();
  try {
    return await send();
  } catch (error) {
    const pending = findAuthorizationRequired(error);
    if (!pending?.prompting) throw error;
    if (!(await settledWithin(pending.authorized, timeoutMs - (Date.now() - started), signal)))
      throw error;
    return await send();
  }
}

/** Whether `promise` settles within `ms` (and before `signal` aborts). */
async function settledWithin(
  promise: Promise<void>,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  if (ms <= 0 || signal?.aborted) return false;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const settled = await Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
      onAbort = () => resolve(false);
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
  ]);
  clearTimeout(timer);
  if (onAbort) signal?.removeEventListener("abort", onAbort);
  return settled && !signal?.aborted;
}
