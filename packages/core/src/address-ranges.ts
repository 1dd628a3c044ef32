import { BlockList, isIP } from "node:net";

/**
 * Address ranges no capability, tool or probe should reach unless an operator says so: the router's own machine,
 * its private networks, cloud metadata, and the ranges that embed or translate to those (NAT64, 6to4, Teredo).
 * One list, shared by the HTTP tool service's SSRF guard, the registration check and the health prober.
 *
 * Classification only, with `node:net`'s parser and `BlockList` (which also matches an IPv4 range against the
 * IPv4-mapped IPv6 form, `::ffff:169.254.169.254`): no socket is opened here.
 */

/** One special-purpose range: its network, prefix length, and what it is, in words an operator reads. */
export interface SpecialAddressRange {
  /** The network in CIDR notation, `169.254.0.0/16`. */
  readonly cidr: string;
  /** What the range is, `link-local (cloud metadata)`. */
  readonly name: string;
}

/** The ranges {@link specialAddressRange} knows, most specific first where two overlap. */
export const SPECIAL_ADDRESS_RANGES: readonly SpecialAddressRange[] = Object.freeze([
  { cidr: "0.0.0.0/8", name: "this network (unspecified)" },
  { cidr: "10.0.0.0/8", name: "private" },
  { cidr: "100.64.0.0/10", name: "shared address space (carrier-grade NAT)" },
  { cidr: "127.0.0.0/8", name: "loopback" },
  { cidr: "169.254.0.0/16", name: "link-local (cloud metadata)" },
  { cidr: "172.16.0.0/12", name: "private" },
  { cidr: "192.0.0.0/24", name: "IETF protocol assignments" },
  { cidr: "192.0.2.0/24", name: "documentation" },
  { cidr: "192.168.0.0/16", name: "private" },
  { cidr: "198.18.0.0/15", name: "benchmarking" },
  { cidr: "198.51.100.0/24", name: "documentation" },
  { cidr: "203.0.113.0/24", name: "documentation" },
  { cidr: "224.0.0.0/4", name: "multicast" },
  { cidr: "240.0.0.0/4", name: "reserved (and broadcast)" },
  { cidr: "::/128", name: "unspecified" },
  { cidr: "::1/128", name: "loopback" },
  { cidr: "::/96", name: "IPv4-compatible (deprecated)" },
  { cidr: "64:ff9b::/96", name: "NAT64 (translates to IPv4)" },
  { cidr: "64:ff9b:1::/48", name: "local NAT64 (translates to IPv4)" },
  { cidr: "100::/64", name: "discard" },
  { cidr: "2001::/32", name: "Teredo (tunnels to IPv4)" },
  { cidr: "2001:db8::/32", name: "documentation" },
  { cidr: "2002::/16", name: "6to4 (tunnels to IPv4)" },
  { cidr: "fc00::/7", name: "unique-local (cloud metadata at fd00:ec2::254)" },
  { cidr: "fe80::/10", name: "link-local" },
  { cidr: "fec0::/10", name: "site-local (deprecated)" },
  { cidr: "ff00::/8", name: "multicast" },
]);

/** A network an operator named: an address and its prefix length. */
export interface Network {
  address: string;
  prefix: number;
  family: "ipv4" | "ipv6";
}

/**
 * An address without the brackets of a URL host (`[::1]`) or an IPv6 zone (`fe80::1%eth0`, which `BlockList`
 * would not match).
 */
function bareAddress(address: string): string {
  const unbracketed = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const zone = unbracketed.indexOf("%");
  return zone === -1 ? unbracketed : unbracketed.slice(0, zone);
}

/** The address family `node:net` gives an IP literal, or undefined for anything else (a host name). */
function familyOf(address: string): "ipv4" | "ipv6" | undefined {
  const family = isIP(address);
  return family === 4 ? "ipv4" : family === 6 ? "ipv6" : undefined;
}

/**
 * Reads a network as an operator writes it: `10.0.0.0/8`, `fd00::/8`, or a single address (`127.0.0.1`, a /32
 * or /128). @returns undefined when it is not one.
 */
export function parseNetwork(text: string): Network | undefined {
  const slash = text.indexOf("/");
  const address = bareAddress((slash === -1 ? text : text.slice(0, slash)).trim());
  const family = familyOf(address);
  if (family === undefined) return undefined;
  const max = family === "ipv4" ? 32 : 128;
  const prefixText = slash === -1 ? String(max) : text.slice(slash + 1).trim();
  if (!/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  return prefix <= max ? { address, prefix, family } : undefined;
}

/** A set of networks that answers whether an address lies in one of them. */
export interface NetworkList {
  /** True when `address` (an IP literal, brackets and zone allowed) is in one of the networks. */
  includes(address: string): boolean;
  /** The networks, as given. */
  readonly networks: readonly string[];
}

/**
 * Builds a {@link NetworkList} from networks as {@link parseNetwork} reads them.
 *
 * @example
 * ```ts
 * createNetworkList(["10.0.0.0/8", "fd00::/8"]).includes("10.1.2.3"); // true
 * ```
 * @throws Error naming the first entry that is not a network (check entries with {@link parseNetwork} first to
 * report them your own way).
 */
export function createNetworkList(networks: readonly string[]): NetworkList {
  const list = new BlockList();
  for (const text of networks) {
    const network = parseNetwork(text);
    if (!network) throw new Error(`'${text}' is not an IP network (such as 10.0.0.0/8 or fd00::/8)`);
    list.addSubnet(network.address, network.prefix, network.family);
  }
  return {
    networks: Object.freeze([...networks]),
    includes(address) {
      const bare = bareAddress(address);
      const family = familyOf(bare);
      return family !== undefined && list.check(bare, family);
    },
  };
}

/** One `BlockList` per special range, in the order of {@link SPECIAL_ADDRESS_RANGES}. */
function rangeLists(): readonly { range: SpecialAddressRange; list: NetworkList }[] {
  return SPECIAL_ADDRESS_RANGES.map((range) => ({ range, list: createNetworkList([range.cidr]) }));
}

/** Built once per process: classification is on the path of every HTTP tool call's connect. */
const RANGE_LISTS = rangeLists();
/** Every special range in one list: the common answer (an ordinary address) takes one check. */
const ANY_SPECIAL = createNetworkList(SPECIAL_ADDRESS_RANGES.map((range) => range.cidr));

/**
 * The special-purpose range an IP literal lies in (brackets, zones and the IPv4-mapped form `::ffff:a.b.c.d`
 * understood), or undefined for an ordinary public address and for anything that is not an IP literal.
 *
 * @example
 * ```ts
 * specialAddressRange("::ffff:169.254.169.254")?.name; // "link-local (cloud metadata)"
 * specialAddressRange("93.184.216.34"); // undefined
 * ```
 */
export function specialAddressRange(address: string): SpecialAddressRange | undefined {
  if (!ANY_SPECIAL.includes(address)) return undefined;
  return RANGE_LISTS.find(({ list }) => list.includes(address))?.range;
}

/** True for an IP literal in one of the {@link SPECIAL_ADDRESS_RANGES}. */
export function isSpecialAddress(address: string): boolean {
  return ANY_SPECIAL.includes(address);
}

/** True for an IP literal (brackets and zone allowed), false for a host name. */
export function isIpLiteral(host: string): boolean {
  return familyOf(bareAddress(host)) !== undefined;
}
