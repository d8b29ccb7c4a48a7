import { isIPv4, isIPv6 } from "node:net";

/**
 * IP addresses as bytes: the one parser behind the push endpoint rule (which addresses the relay may POST to) and
 * the rate limits' client key (IPv6 grouped by /64). IPv4 text is dotted decimal (what URL and the socket give);
 * IPv6 may hold `::`, a dotted IPv4 tail and a zone (`%eth0`, ignored).
 */
export type ParsedIp = { version: 4; bytes: number[] } | { version: 6; bytes: number[] };

export function parseIp(text: string): ParsedIp | undefined {
  const address = text.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (isIPv4(address)) return { version: 4, bytes: address.split(".").map(Number) };
  if (!isIPv6(address)) return undefined;
  let tail: number[] = [];
  let head = address;
  const dotted = /:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted) {
    tail = (dotted[1] as string).split(".").map(Number);
    head = `${address.slice(0, dotted.index)}:0:0`;
  }
  const [left = "", right] = head.split("::");
  const words = (part: string) => (part === "" ? [] : part.split(":").map((word) => Number.parseInt(word, 16)));
  const leftWords = words(left);
  const rightWords = right === undefined ? [] : words(right);
  const fill = right === undefined ? [] : new Array(8 - leftWords.length - rightWords.length).fill(0);
  const all = [...leftWords, ...fill, ...rightWords];
  const bytes = all.flatMap((word) => [word >> 8, word & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes.length === 16 ? { version: 6, bytes } : undefined;
}

const startsWith = (bytes: number[], prefix: number[], bits: number): boolean => {
  for (let bit = 0; bit < bits; bit += 8) {
    const take = Math.min(8, bits - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[bit / 8] ?? 0) & mask) !== ((prefix[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
};

/** IPv4 ranges that are not the public internet (RFC 6890 and friends), with the reason a refusal names. */
const V4_RANGES: [number[], number, string][] = [
  [[0, 0, 0, 0], 8, "an unspecified (0.0.0.0/8)"],
  [[10, 0, 0, 0], 8, "a private (10/8)"],
  [[100, 64, 0, 0], 10, "a shared CGNAT (100.64/10)"],
  [[127, 0, 0, 0], 8, "a loopback"],
  [[169, 254, 0, 0], 16, "a link-local or metadata (169.254/16)"],
  [[172, 16, 0, 0], 12, "a private (172.16/12)"],
  [[192, 0, 0, 0], 24, "a reserved (192.0.0/24)"],
  [[192, 0, 2, 0], 24, "a documentation"],
  [[192, 88, 99, 0], 24, "a reserved (6to4 relay)"],
  [[192, 168, 0, 0], 16, "a private (192.168/16)"],
  [[198, 18, 0, 0], 15, "a benchmarking (198.18/15)"],
  [[198, 51, 100, 0], 24, "a documentation"],
  [[203, 0, 113, 0], 24, "a documentation"],
  [[224, 0, 0, 0], 4, "a multicast"],
  [[240, 0, 0, 0], 4, "a reserved (240/4) or broadcast"],
];

/**
 * Why an address is not a public unicast one (e.g. "a loopback"), or undefined for a public address. IPv6 forms
 * that carry an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4) are judged by that IPv4 address.
 */
export function nonPublicReason(ip: ParsedIp): string | undefined {
  const { bytes } = ip;
  if (ip.version === 4) return V4_RANGES.find(([prefix, bits]) => startsWith(bytes, prefix, bits))?.[2];
  const v4 = (from: number) => nonPublicReason({ version: 4, bytes: bytes.slice(from, from + 4) });
  if (bytes.every((byte) => byte === 0)) return "an unspecified (::)";
  if (bytes.slice(0, 15).every((byte) => byte === 0) && bytes[15] === 1) return "a loopback";
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated).
  if (startsWith(bytes, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96)) return v4(12);
  if (startsWith(bytes, [], 96)) return v4(12) ?? "a reserved (IPv4-compatible)";
  // NAT64 (64:ff9b::/96 well-known, 64:ff9b:1::/48 local): the IPv4 address it translates to decides.
  if (startsWith(bytes, [0, 0x64, 0xff, 0x9b], 96)) return v4(12);
  if (startsWith(bytes, [0, 0x64, 0xff, 0x9b, 0, 1], 48)) return "a local NAT64 (64:ff9b:1::/48)";
  if (startsWith(bytes, [0xfe, 0x80], 10)) return "a link-local (fe80::/10)";
  if (startsWith(bytes, [0xfe, 0xc0], 10)) return "a site-local (fec0::/10)";
  if (startsWith(bytes, [0xfc], 7)) return "a unique-local or metadata (fc00::/7)";
  if (startsWith(bytes, [0xff], 8)) return "a multicast";
  if (startsWith(bytes, [0x20, 0x01, 0x0d, 0xb8], 32)) return "a documentation";
  // 6to4 carries the IPv4 address in bits 16-47.
  if (startsWith(bytes, [0x20, 0x02], 16)) return v4(2);
  // Teredo and the other IETF protocol assignments (2001::/23): no push service lives there.
  if (startsWith(bytes, [0x20, 0x01, 0x00], 23)) return "a special-purpose (2001::/23)";
  // Global unicast is 2000::/3; everything else is unassigned or reserved.
  if (!startsWith(bytes, [0x20], 3)) return "a reserved";
  return undefined;
}

/** True for 127/8, ::1 and their IPv4-mapped forms: what the loopback switch lets through. */
export function isLoopback(ip: ParsedIp): boolean {
  return nonPublicReason(ip) === "a loopback";
}

/**
 * The key per-address rate limits count on: an IPv4 address as is (IPv4-mapped IPv6 counts as its IPv4 address),
 * an IPv6 address by its /64, which one subscriber usually holds whole. Anything unparsable is its own key.
 */
export function clientKey(address: string): string {
  const ip = parseIp(address);
  if (!ip) return address;
  if (ip.version === 4) return ip.bytes.join(".");
  if (startsWith(ip.bytes, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96)) return ip.bytes.slice(12).join(".");
  const words: string[] = [];
  for (let index = 0; index < 8; index += 2) {
    words.push((((ip.bytes[index] ?? 0) << 8) | (ip.bytes[index + 1] ?? 0)).toString(16));
  }
  return `${words.join(":")}::/64`;
}
