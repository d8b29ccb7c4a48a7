import type { ArcNotification } from "@notify/contracts";

import { NOTIFICATION_STATUSES, type NotificationStatus, PRIORITIES, type Priority } from "@notify/contracts/enums";

/** The lists are the contract's (issue 34: each enum once), named here as the broker always has. */
export { NOTIFICATION_STATUSES, type NotificationStatus, PRIORITIES, type Priority };

/**
 * NotificationDto (docs/api.md, "Notification object"). Absent optional fields are omitted. The shape is the contract's
 * (`ArcNotification` in
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
