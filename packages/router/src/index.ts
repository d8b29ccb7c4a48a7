export const ROUTER_PACKAGE = "@notify/router";
