import type { ConversationTasks } from "./conversationTasks.js";
import type { TaskEntry } from "./taskEntry.js";

/**
 * G4: the relayed tasks of every conversation of a gateway, by the server that runs each
 * and its id there: where a server's status notification and its requests for a task go.
 */
export class UpstreamTasks {
  readonly #byUpstream = new Map<string, { tasks: ConversationTasks; entry: TaskEntry }>();

  add(extension: string, upstreamTaskId: string, tasks: ConversationTasks, entry: TaskEntry): void {
    this.#byUpstream.set(key(extension, upstreamTaskId), { tasks, entry });
  }

  remove(extension: string, upstreamTaskId: string): void {
    this.#byUpstream.delete(key(extension, upstreamTaskId));
  }

  find(
    extension: string,
    upstreamTaskId: string,
  ): { tasks: ConversationTasks; entry: TaskEntry } | undefined {
    return this.#byUpstream.get(key(extension, upstreamTaskId));
  }
}

function key(extension: string, upstreamTaskId: string): string {
  return `${extension}\u0000${upstreamTaskId}`;
}
