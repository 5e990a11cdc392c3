/** G4: how long a task the gateway runs is kept without a `ttl` from the client, and at most. */
export const GATEWAY_TASK_TTL_MS = 10 * 60_000;
export const MAX_GATEWAY_TASK_TTL_MS = 60 * 60_000;
/** The poll interval the gateway suggests for the tasks it runs. */
export const GATEWAY_TASK_POLL_MS = 1_000;
/** Open tasks one conversation may have at once. */
export const OPEN_TASKS_PER_CONVERSATION = 100;
/** Tasks per `tasks/list` page. */
export const TASK_LIST_PAGE = 50;
/** How long a close waits for a server to cancel a task. */
export const CANCEL_ON_CLOSE_MS = 5_000;
/** How long a relayed `tasks/result` may block (a human may be answering an elicitation). */
export const TASK_RESULT_TIMEOUT_MS = 60 * 60_000;
