/** The ARC version this package speaks (spec 2: `arc_version` must be exactly "0.2"). */
export const ARC_VERSION = "0.2";
