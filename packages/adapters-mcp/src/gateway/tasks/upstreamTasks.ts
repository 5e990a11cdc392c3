import type { TaskStatus as McpTaskStatus } from "@modelcontextprotocol/server";
import type { Peer } from "../downstreamPeer.js";
import type { TaskEntry } from "./taskEntry.js";

/**
 * The conversation that owns a relayed task, as the hub reaches it (a ConversationTasks): its
 * client, and the task's status as the server reports it.
 */
export interface TaskOwner {
  readonly peer: Peer;
  observe(
    entry: TaskEntry,
    seen: { status: McpTaskStatus; statusMessage?: string | undefined },
  ): Promise<void>;
}

/**
 * G4: the relayed tasks of every conversation of a gateway, by the server that runs each
 * and its id there: where a server's status notification and its requests for a task go.
 */
export class UpstreamTasks {
  readonly #byUpstream = new Map<string, { tasks: TaskOwner; entry: TaskEntry }>();

  add(extension: string, upstreamTaskId: string, tasks: TaskOwner, entry: TaskEntry): void {
    this.#byUpstream.set(key(extension, upstreamTaskId), { tasks, entry });
  }

  remove(extension: string, upstreamTaskId: string): void {
    this.#byUpstream.delete(key(extension, upstreamTaskId));
  }

  find(
    extension: string,
    upstreamTaskId: string,
  ): { tasks: TaskOwner; entry: TaskEntry } | undefined {
    return this.#byUpstream.get(key(extension, upstreamTaskId));
  }
}

function key(extension: string, upstreamTaskId: string): string {
  return `${extension}\u0000${upstreamTaskId}`;
}
