/**
 * What a host reads while the router is off, without loading the router (`@notify/router/host`): the native
 * vendor's default URL and the destination rule for RouterNativeBaseUrl, and the RouterAgentAccounts key. These
 * modules import nothing at run time, so the broker can read its config.json keys at start and import the rest of
 * the package only when the router is switched on or first asked (issue 22, part 6).
 */
export { destinationProblem } from "./config/records.js";
export { DEFAULT_NATIVE_BASE_URL } from "./native.js";
export { AGENT_ACCOUNTS_KEY, type AgentAccountEntry, parseAgentAccounts } from "./subscriptions/agent-accounts.js";
