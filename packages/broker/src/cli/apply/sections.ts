import { outboundSection } from "./outbound-section.js";
import { presentationSection } from "./presentation-section.js";
import { relaySection } from "./relay-section.js";
import { routerSection } from "./router-section.js";
import type { ApplySection } from "./section.js";
import { soundsSection } from "./sounds-section.js";
import { notificationTypesSection } from "./types-section.js";

/**
 * The top-level sections of an apply file, in the order they are planned and applied (docs/apply.md). A key not
 * listed here is an error.
 */
export const SECTIONS: readonly ApplySection[] = [
  notificationTypesSection,
  outboundSection,
  routerSection,
  presentationSection,
  soundsSection,
  relaySection,
];
