import type * as grpc from "@grpc/grpc-js";
import { Code, TrestleError } from "@trestle/core";
import { type InFlightEntry, InFlightSet } from "@trestle/core/in-flight";
import type { ChannelSecurity } from "./channel-security.js";
import { loadGrpcJs } from "./load-grpc-js.js";

/** What a pool keeps per address: a grpc-js client, or the lean unary client's HTTP/2 connection. */
export interface Closable {
  close(): void;
}

/** A call in flight on a pooled channel, as the pool sees it: something it can abort when it closes. */
export type AbortCall = (reason: TrestleError) => void;

/** One use of a pooled channel: take it for a call, give it back when the call ends. */
export interface ChannelLease<C extends Closable = grpc.Client> {
  /** The shared client of the channel. */
  readonly client: C;
  /** Registers the running call, so that closing the pool can abort it. */
  track(abort: AbortCall): void;
  /** Ends the use; idempotent. */
  done(): void;
}

/** Channels keyed by address and security, shared by every call and service to that address. */
export interface ChannelPool<C extends Closable = grpc.Client> {
  /** Takes the channel for `address` with `security`, opening it on first use. */
  lease(address: string, security: ChannelSecurity): ChannelLease<C>;
  /**
   * Retires the channel for `address` with `security`: the next call opens a new one, and this one closes
   * (with its connection) once the calls already made on it have finished.
   */
  release(address: string, security: ChannelSecurity): void;
  /** Aborts every call in flight with `reason` and closes every channel. */
  close(reason: TrestleError): void;
  /** How many channels are open. */
  readonly size: number;
}

/** Options for {@link createChannelPool}. */
export interface ChannelPoolOptions<C extends Closable = grpc.Client> {
  /**
   * Opens the channel for an address (default: a grpc-js client with `channelOptions`).
   * @throws TrestleError `InvalidArgument` for an unusable address or TLS settings.
   */
  connect?: (address: string, security: ChannelSecurity) => C;
  /** Options of every new grpc-js channel (used by the default `connect`). */
  channelOptions?: grpc.ChannelOptions;
  /** A channel with no call for this long is closed. */
  idleTimeoutMs: number;
}

interface PooledChannel<C extends Closable> {
  key: string;
  client: C;
  active: number;
  lastUsedAt: number;
  /** The calls tracked on it: an InFlightSet, not a Set, as they come and go with every call. */
  calls: InFlightSet<AbortCall>;
  idleTimer: NodeJS.Timeout | undefined;
  /** Out of the pool; closes when its last call ends. */
  retired: boolean;
  closed: boolean;
}

/**
 * A grpc-js client for `address`, with its own subchannel pool (so that closing it closes its connection).
 * grpc-js is loaded when the first client is made, not before.
 */
export function grpcClientConnector(channelOptions: grpc.ChannelOptions) {
  return (address: string, security: ChannelSecurity): grpc.Client => {
    const credentials = security.credentials();
    try {
      return new (loadGrpcJs().Client)(address, credentials, {
        ...channelOptions,
        ...security.channelOptions,
        "grpc.use_local_subchannel_pool": 1,
      });
    } catch (error) {
      throw new TrestleError(
        `Cannot open a channel to ${address}: ${error instanceof Error ? error.message : String(error)}`,
        Code.InvalidArgument,
      );
    }
  };
}

/**
 * Creates a pool of channels (grpc-js clients unless `connect` says otherwise): one channel (so one HTTP/2
 * connection) per address and TLS identity, reused by every call and every service there, closed after
 * `idleTimeoutMs` without a call. Each grpc-js channel has its own subchannel pool
 * (`grpc.use_local_subchannel_pool`), so closing it really closes its connection instead of leaving it to
 * grpc-js's process-wide pool.
 */
export function createChannelPool<C extends Closable = grpc.Client>(
  options: ChannelPoolOptions<C>,
): ChannelPool<C> {
  const connect =
    options.connect ??
    (grpcClientConnector(options.channelOptions ?? {}) as unknown as (
      address: string,
      security: ChannelSecurity,
    ) => C);
  const channels = new Map<string, PooledChannel<C>>();
  // Every channel not closed yet: the pooled ones and the retired ones still finishing calls.
  const live = new Set<PooledChannel<C>>();

  function closeChannel(channel: PooledChannel<C>): void {
    if (channel.closed) return;
    channel.closed = true;
    live.delete(channel);
    channel.client.close();
  }

  function retire(channel: PooledChannel<C>): void {
    if (channels.get(channel.key) === channel) channels.delete(channel.key);
    if (channel.idleTimer) clearTimeout(channel.idleTimer);
    channel.idleTimer = undefined;
    channel.retired = true;
    // grpc-js fails calls that wait for a connection when their channel closes: wait for them instead.
    if (channel.active === 0) closeChannel(channel);
  }

  // One timer per idle channel, re-armed for the time left rather than reset on every call: 10,000 calls
  // cost no timer work beyond a timestamp.
  function checkIdle(channel: PooledChannel<C>): void {
    channel.idleTimer = undefined;
    if (channel.active > 0) return;
    const idleFor = Date.now() - channel.lastUsedAt;
    if (idleFor >= options.idleTimeoutMs) retire(channel);
    else armIdleTimer(channel, options.idleTimeoutMs - idleFor);
  }

  function armIdleTimer(channel: PooledChannel<C>, ms: number): void {
    if (channel.idleTimer) return;
    channel.idleTimer = setTimeout(() => checkIdle(channel), ms);
    channel.idleTimer.unref();
  }

  function open(key: string, address: string, security: ChannelSecurity): PooledChannel<C> {
    const client = connect(address, security);
    const channel: PooledChannel<C> = {
      key,
      client,
      active: 0,
      lastUsedAt: Date.now(),
      calls: new InFlightSet(),
      idleTimer: undefined,
      retired: false,
      closed: false,
    };
    channels.set(key, channel);
    live.add(channel);
    return channel;
  }

  return {
    lease(address, security) {
      const key = `${address}|${security.identity}`;
      const channel = channels.get(key) ?? open(key, address, security);
      channel.active++;
      let tracked: InFlightEntry<AbortCall> | undefined;
      let finished = false;
      return {
        client: channel.client,
        track(abort) {
          if (tracked) channel.calls.delete(tracked);
          tracked = channel.calls.add(abort);
        },
        done() {
          if (finished) return;
          finished = true;
          if (tracked) channel.calls.delete(tracked);
          channel.active--;
          channel.lastUsedAt = Date.now();
          if (channel.active > 0) return;
          if (channel.retired) closeChannel(channel);
          else armIdleTimer(channel, options.idleTimeoutMs);
        },
      };
    },
    release(address, security) {
      const channel = channels.get(`${address}|${security.identity}`);
      if (channel) retire(channel);
    },
    close(reason) {
      for (const channel of [...live]) {
        for (const abort of channel.calls.values()) abort(reason);
        retire(channel);
        closeChannel(channel);
      }
    },
    get size() {
      return channels.size;
    },
  };
}
