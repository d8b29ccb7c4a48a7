/** The ARC version this package speaks (docs/arc.md, "Versioning": `arc_version` must be exactly "0.2"). */
export const ARC_VERSION = "0.2";
