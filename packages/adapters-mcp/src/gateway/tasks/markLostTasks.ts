import type { Conversation } from "../../conversation/conversation.js";

/**
 * C6: a resumed conversation's tasks that were open when its gateway stopped (a crash, a
 * kill: a clean stop cancels them) are recorded as lost: nobody saw them end, and their
 * servers' connections went with that gateway.
 */
export async function markLostTasks(conversation: Conversation): Promise<void> {
  for (const task of conversation.state.tasks.open) {
    await conversation.recordTask({
      type: "ChangeTaskStatus",
      taskId: task.taskId,
      status: "lost",
      message: "the gateway that ran it stopped before it ended; its outcome is unknown",
    });
  }
}
