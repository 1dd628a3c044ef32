import * as grpc from "@grpc/grpc-js";
import { Code, TrestleError } from "@trestle/core";
import type { ChannelSecurity } from "./channel-security.js";

/** A call in flight on a pooled channel, as the pool sees it: something it can abort when it closes. */
export type AbortCall = (reason: TrestleError) => void;

/** One use of a pooled channel: take it for a call, give it back when the call ends. */
export interface ChannelLease {
  /** The shared client of the channel. */
  readonly client: grpc.Client;
  /** Registers the running call, so that closing the pool can abort it. */
  track(abort: AbortCall): void;
  /** Ends the use; idempotent. */
  done(): void;
}

/** Channels keyed by address and security, shared by every call and service to that address. */
export interface ChannelPool {
  /** Takes the channel for `address` with `security`, opening it on first use. */
  lease(address: string, security: ChannelSecurity): ChannelLease;
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
export interface ChannelPoolOptions {
  /** Options of every new channel. */
  channelOptions: grpc.ChannelOptions;
  /** A channel with no call for this long is closed. */
  idleTimeoutMs: number;
}

interface PooledChannel {
  key: string;
  client: grpc.Client;
  active: number;
  lastUsedAt: number;
  calls: Set<AbortCall>;
  idleTimer: NodeJS.Timeout | undefined;
  /** Out of the pool; closes when its last call ends. */
  retired: boolean;
  closed: boolean;
}

/**
 * Creates a pool of grpc-js channels: one channel (so one HTTP/2 connection) per address and TLS identity,
 * reused by every call and every service there, closed after `idleTimeoutMs` without a call. Each channel
 * has its own subchannel pool (`grpc.use_local_subchannel_pool`), so closing it really closes its
 * connection instead of leaving it to grpc-js's process-wide pool.
 */
export function createChannelPool(options: ChannelPoolOptions): ChannelPool {
  const channels = new Map<string, PooledChannel>();
  // Every channel not closed yet: the pooled ones and the retired ones still finishing calls.
  const live = new Set<PooledChannel>();

  function closeChannel(channel: PooledChannel): void {
    if (channel.closed) return;
    channel.closed = true;
    live.delete(channel);
    channel.client.close();
  }

  function retire(channel: PooledChannel): void {
    if (channels.get(channel.key) === channel) channels.delete(channel.key);
    if (channel.idleTimer) clearTimeout(channel.idleTimer);
    channel.idleTimer = undefined;
    channel.retired = true;
    // grpc-js fails calls that wait for a connection when their channel closes: wait for them instead.
    if (channel.active === 0) closeChannel(channel);
  }

  // One timer per idle channel, re-armed for the time left rather than reset on every call: 10,000 calls
  // cost no timer work beyond a timestamp.
  function checkIdle(channel: PooledChannel): void {
    channel.idleTimer = undefined;
    if (channel.active > 0) return;
    const idleFor = Date.now() - channel.lastUsedAt;
    if (idleFor >= options.idleTimeoutMs) retire(channel);
    else armIdleTimer(channel, options.idleTimeoutMs - idleFor);
  }

  function armIdleTimer(channel: PooledChannel, ms: number): void {
    if (channel.idleTimer) return;
    channel.idleTimer = setTimeout(() => checkIdle(channel), ms);
    channel.idleTimer.unref();
  }

  function open(key: string, address: string, security: ChannelSecurity): PooledChannel {
    const credentials = security.credentials();
    let client: grpc.Client;
    try {
      client = new grpc.Client(address, credentials, {
        ...options.channelOptions,
        ...security.channelOptions,
        "grpc.use_local_subchannel_pool": 1,
      });
    } catch (error) {
      throw new TrestleError(
        `Cannot open a channel to ${address}: ${error instanceof Error ? error.message : String(error)}`,
        Code.InvalidArgument,
      );
    }
    const channel: PooledChannel = {
      key,
      client,
      active: 0,
      lastUsedAt: Date.now(),
      calls: new Set(),
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
      let abort: AbortCall | undefined;
      let finished = false;
      return {
        client: channel.client,
        track(a) {
          abort = a;
          channel.calls.add(a);
        },
        done() {
          if (finished) return;
          finished = true;
          if (abort) channel.calls.delete(abort);
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
        for (const abort of [...channel.calls]) abort(reason);
        retire(channel);
        closeChannel(channel);
      }
    },
    get size() {
      return channels.size;
    },
  };
}
