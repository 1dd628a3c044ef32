import type { LookupAddress, LookupOptions } from "node:dns";
import { lookup as dnsLookup } from "node:dns";
import { Code, TrestleError } from "@trestle/core";
import { isSpecialAddress, specialAddressRange } from "@trestle/core/address-ranges";

/** Which hosts and addresses the HTTP tool invoker may connect to. */
export interface AddressPolicyOptions {
  /**
   * Allow private, loopback, link-local, unique-local and metadata addresses. Default false: a tool whose URL
   * (or whose host name) leads there is refused, so a tool cannot be used to reach the router's own network.
   */
  allowPrivate?: boolean;
  /**
   * When not empty, only these hosts may be called: exact names (`api.example.com`), IP literals, or
   * `*.example.com` for any subdomain of `example.com`. Compared case-insensitively.
   */
  allowedHosts?: readonly string[];
}

/** The callback shape of `dns.lookup`, which `http.request` accepts as its `lookup` option. */
type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** Checks a URL's host before a request and every address a host name resolves to before connecting. */
export interface AddressPolicy {
  /**
   * Checks a host against the allowlist and, when it is an IP literal, against the private ranges.
   * @throws TrestleError PermissionDenied.
   */
  checkHost(hostname: string): void;
  /**
   * A drop-in for `dns.lookup` that refuses host names resolving to a forbidden address. `http.request` then
   * connects to the very addresses it checked, so DNS cannot change its answer between check and connect.
   */
  lookup(hostname: string, options: LookupOptions, callback: LookupCallback): void;
}

/**
 * True for an address in a private, loopback, link-local, unique-local, multicast, unspecified or other
 * special-purpose range (NAT64, 6to4, Teredo, benchmarking… `@trestle/core/address-ranges` lists them),
 * including IPv4 addresses written as IPv4-mapped IPv6 (`::ffff:127.0.0.1`).
 */
export function isPrivateAddress(address: string): boolean {
  return isSpecialAddress(address);
}

function bare(hostname: string): string {
  const lower = hostname.toLowerCase();
  return lower.startsWith("[") && lower.endsWith("]") ? lower.slice(1, -1) : lower;
}

function hostAllowed(host: string, allowedHosts: readonly string[]): boolean {
  return allowedHosts.some((entry) => {
    const pattern = bare(entry.trim());
    if (pattern.startsWith("*.")) return host.endsWith(pattern.slice(1));
    return host === pattern;
  });
}

/** Hands a refusal to Node's connect path, which passes the very error object on to the request's `error`. */
function failLookup(callback: LookupCallback, error: TrestleError): void {
  callback(error as unknown as NodeJS.ErrnoException, []);
}

function refusedAddress(host: string, address: string): TrestleError {
  const range = specialAddressRange(address)?.name ?? "special-purpose";
  return new TrestleError(
    `Refused to connect to ${host} (${address}): it is a ${range} address, and private, loopback, link-local and other special-purpose addresses are not allowed`,
    Code.PermissionDenied,
  );
}

/** Creates the {@link AddressPolicy} that the HTTP tool invoker applies to every request and redirect. */
export function createAddressPolicy(options: AddressPolicyOptions = {}): AddressPolicy {
  const allowPrivate = options.allowPrivate ?? false;
  const allowedHosts = options.allowedHosts ?? [];
  return {
    checkHost(hostname) {
      const host = bare(hostname);
      if (allowedHosts.length > 0 && !hostAllowed(host, allowedHosts)) {
        throw new TrestleError(`Host ${host} is not in the allowed hosts`, Code.PermissionDenied);
      }
      if (!allowPrivate && isPrivateAddress(host)) throw refusedAddress(host, host);
    },
    lookup(hostname, lookupOptions, callback) {
      dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
        if (error) return callback(error, []);
        if (addresses.length === 0) {
          return failLookup(callback, new TrestleError(`${hostname} resolved to no address`, Code.Internal));
        }
        if (!allowPrivate) {
          const refused = addresses.find((a) => isPrivateAddress(a.address));
          if (refused) return failLookup(callback, refusedAddress(hostname, refused.address));
        }
        if (lookupOptions.all) return callback(null, addresses);
        const first = addresses[0] as LookupAddress;
        callback(null, first.address, first.family);
      });
    },
  };
}
