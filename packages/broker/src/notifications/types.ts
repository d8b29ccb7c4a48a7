import type { ArcNotification } from "@notify/contracts";

export const PRIORITIES = ["low", "normal", "high", "critical"] as const;
export type Priority = (typeof PRIORITIES)[number];

export const NOTIFICATION_STATUSES = ["active", "dismissed", "resolved"] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

/**
 * NotificationDto (spec 1). Absent optional fields are omitted. The shape is the contract's (`ArcNotification` in
 * @notify/contracts, what producers get back), declared once there.
 */
export type NotificationDto = ArcNotification;

/** A validated create request, defaults applied except priority (which depends on the type definition). */
export interface NotificationInput {
  title: string;
  message: string;
  type: string;
  priority?: Priority;
  agent: string;
  agentInstance?: string;
  project?: string;
  key?: string;
  cwd?: string;
  pid?: number;
  metadata?: Record<string, unknown>;
}

export interface NotificationFilter {
  unresolved?: boolean;
  type?: string;
  status?: NotificationStatus;
  project?: string;
  agent?: string;
  limit: number;
}

export function priorityRank(priority: Priority): number {
  return PRIORITIES.indexOf(priority);
}
