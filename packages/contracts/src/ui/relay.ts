import { z } from "zod";

/** POST /ui/api/relay/enroll: the relay URL and the operator's enrollment token (write-only, never shown back). */
export const relayEnrollBody = z.object({
  url: z.string().min(1),
  enrollmentToken: z.string().min(1),
  name: z.string().min(1).optional(),
});
export type RelayEnrollBody = z.infer<typeof relayEnrollBody>;

/** POST /ui/api/relay/pairings: a one-time code, its link, when it expires, and the link as an SVG QR code. */
export const relayPairing = z.object({
  code: z.string(),
  link: z.string(),
  expires_at: z.string(),
  svg: z.string(),
});
export type RelayPairing = z.infer<typeof relayPairing>;

/** One paired phone in GET /ui/api/relay/devices. */
export const relayDevice = z.object({ device_id: z.string(), device_name: z.string() });
export type RelayDevice = z.infer<typeof relayDevice>;

export const relayDeviceList = z.object({ devices: z.array(relayDevice) });
export type RelayDeviceList = z.infer<typeof relayDeviceList>;
