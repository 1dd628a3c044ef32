import { describe, expect, it } from "vitest";
import {
  createNetworkList,
  isIpLiteral,
  isSpecialAddress,
  parseNetwork,
  SPECIAL_ADDRESS_RANGES,
  specialAddressRange,
} from "./address-ranges.js";

describe("special address ranges", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.9.9.9", "loopback"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["0.0.0.0", "this network (unspecified)"],
    ["::", "unspecified"],
    ["10.1.2.3", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "shared address space (carrier-grade NAT)"],
    ["169.254.169.254", "link-local (cloud metadata)"],
    ["192.0.0.170", "IETF protocol assignments"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.254", "benchmarking"],
    ["224.0.0.251", "multicast"],
    ["255.255.255.255", "reserved (and broadcast)"],
    ["fd00:ec2::254", "unique-local (cloud metadata at fd00:ec2::254)"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["fec0::1", "site-local (deprecated)"],
    ["ff02::1", "multicast"],
    ["64:ff9b::a9fe:a9fe", "NAT64 (translates to IPv4)"],
    ["64:ff9b:1::1", "local NAT64 (translates to IPv4)"],
    ["2002:a9fe:a9fe::1", "6to4 (tunnels to IPv4)"],
    ["2001:0:4136:e378::1", "Teredo (tunnels to IPv4)"],
    ["::7f00:1", "IPv4-compatible (deprecated)"],
  ])("%s is %s", (address, name) => {
    expect(specialAddressRange(address)?.name).toBe(name);
    expect(isSpecialAddress(address)).toBe(true);
  });

  it("reads IPv4-mapped IPv6 addresses as the IPv4 address they carry", () => {
    expect(specialAddressRange("::ffff:169.254.169.254")?.name).toBe("link-local (cloud metadata)");
    expect(specialAddressRange("::ffff:a9fe:a9fe")?.name).toBe("link-local (cloud metadata)");
    expect(specialAddressRange("::ffff:127.0.0.1")?.name).toBe("loopback");
    expect(specialAddressRange("[::ffff:10.0.0.1]")?.name).toBe("private");
    expect(isSpecialAddress("::ffff:93.184.216.34")).toBe(false);
  });

  it.each([
    "93.184.216.34",
    "8.8.8.8",
    "172.32.0.1",
    "198.20.0.1",
    "192.0.1.1",
    "2606:4700::1111",
    "2001:4860:4860::8888",
  ])("%s is an ordinary address", (address) => {
    expect(specialAddressRange(address)).toBeUndefined();
    expect(isSpecialAddress(address)).toBe(false);
  });

  it("classifies no host name: a name must be resolved first", () => {
    expect(isSpecialAddress("localhost")).toBe(false);
    expect(isSpecialAddress("metadata.google.internal")).toBe(false);
    expect(isIpLiteral("localhost")).toBe(false);
    expect(isIpLiteral("[::1]")).toBe(true);
    expect(isIpLiteral("10.0.0.1")).toBe(true);
  });

  it("lists every range as a valid network", () => {
    for (const range of SPECIAL_ADDRESS_RANGES) expect(parseNetwork(range.cidr), range.cidr).toBeDefined();
  });
});

describe("networks an operator names", () => {
  it("reads CIDR networks and single addresses", () => {
    expect(parseNetwork("10.0.0.0/8")).toEqual({ address: "10.0.0.0", prefix: 8, family: "ipv4" });
    expect(parseNetwork("127.0.0.1")).toEqual({ address: "127.0.0.1", prefix: 32, family: "ipv4" });
    expect(parseNetwork("fd00::/8")).toEqual({ address: "fd00::", prefix: 8, family: "ipv6" });
    expect(parseNetwork("::1")).toEqual({ address: "::1", prefix: 128, family: "ipv6" });
  });

  it.each(["", "10.0.0.0/33", "fd00::/129", "10.0.0.0/", "10.0.0.0/x", "example.com/8", "10.0.0/8", "/8"])(
    "refuses %j",
    (text) => {
      expect(parseNetwork(text)).toBeUndefined();
    },
  );

  it("matches addresses in any of its networks, the IPv4-mapped form included", () => {
    const list = createNetworkList(["10.0.0.0/8", "127.0.0.1", "fd00::/8"]);
    expect(list.includes("10.200.0.1")).toBe(true);
    expect(list.includes("::ffff:10.200.0.1")).toBe(true);
    expect(list.includes("127.0.0.1")).toBe(true);
    expect(list.includes("127.0.0.2")).toBe(false);
    expect(list.includes("fd12::1")).toBe(true);
    expect(list.includes("169.254.169.254")).toBe(false);
    expect(list.includes("localhost")).toBe(false);
    expect(list.networks).toEqual(["10.0.0.0/8", "127.0.0.1", "fd00::/8"]);
  });

  it("names an entry that is not a network", () => {
    expect(() => createNetworkList(["10.0.0.0/8", "intranet"])).toThrow(/'intranet' is not an IP network/);
  });
});
