import { randomUUID } from "node:crypto";
import type { Task } from "@modelcontextprotocol/server";
import {
  GATEWAY_TASK_POLL_MS,
  GATEWAY_TASK_TTL_MS,
  MAX_GATEWAY_TASK_TTL_MS,
} from "./gatewayTaskLimits.js";

/** A new task the gateway runs itself (G4): working, under a fresh id, kept for `ttl` within the gateway's bounds. */
export function newGatewayTask(
  ttl: number | undefined,
): Task & { ttl: number; pollInterval: number } {
  const now = new Date().toISOString();
  return {
    taskId: randomUUID(),
    status: "working",
    createdAt: now,
    lastUpdatedAt: now,
    ttl: Math.min(ttl ?? GATEWAY_TASK_TTL_MS, MAX_GATEWAY_TASK_TTL_MS),
    pollInterval: GATEWAY_TASK_POLL_MS,
  };
}
