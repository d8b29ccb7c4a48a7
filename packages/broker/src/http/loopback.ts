/** True when a Host header names a loopback literal (127.0.0.1, localhost, [::1]) with any port. */
export function isLoopbackHost(host: string | undefined): boolean {
  if (typeof host !== "string" || host.length === 0 || host.length > 300) return false;
  let hostname = host.trim().toLowerCase();
  if (hostname.startsWith("[")) {
    const end = hostname.indexOf("]");
    if (end < 0) return false;
    const rest = hostname.slice(end + 1);
    if (rest !== "" && !/^:\d{1,5}$/.test(rest)) return false;
    hostname = hostname.slice(1, end);
    return hostname === "::1";
  }
  const colon = hostname.lastIndexOf(":");
  if (colon >= 0) {
    if (!/^\d{1,5}$/.test(hostname.slice(colon + 1))) return false;
    hostname = hostname.slice(0, colon);
  }
  return hostname === "127.0.0.1" || hostname === "localhost";
}
