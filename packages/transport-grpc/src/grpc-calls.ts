import type * as grpc from "@grpc/grpc-js";
import { type Cancellation, Code, TrestleError } from "@trestle/core";
import { errorFromGrpcStatus } from "@trestle/grpc-wire";
import type { ChannelLease } from "./channel-pool.js";

/** Everything one call needs besides its message. */
export interface CallPlan {
  /** The channel to call on; the call ends the lease. */
  lease: ChannelLease;
  /** Metadata to send. */
  metadata: grpc.Metadata;
  /** Deadline, in milliseconds from now. */
  timeoutMs: number;
  /** The caller's cancellation (core's `cancellationOf` the call options). */
  cancellation: Cancellation | undefined;
}

/** grpc-js throws synchronously when the channel was closed between lease and call. */
function startFailure(error: unknown): TrestleError {
  return TrestleError.from(error, Code.Unavailable);
}

function cancelledByCaller(cancellation: Cancellation): TrestleError {
  return new TrestleError("The call was cancelled by the caller", Code.Canceled, {
    cause: cancellation.reason,
  });
}

/**
 * Runs a unary call. Rejects with the status mapped to a {@link TrestleError}; with `Canceled` when the
 * caller cancels it (the call is cancelled on the wire, so the service sees it); with the pool's reason
 * when the pool closes under it.
 */
export function unaryCall<I, O>(method: grpc.MethodDefinition<I, O>, request: I, plan: CallPlan): Promise<O> {
  const { lease, cancellation } = plan;
  return new Promise<O>((resolve, reject) => {
    if (cancellation?.aborted) {
      lease.done();
      reject(cancelledByCaller(cancellation));
      return;
    }
    // Why the call ended on our side, when it did: it then wins over the CANCELLED status grpc-js reports.
    let ownReason: TrestleError | undefined;
    let call: grpc.ClientUnaryCall;
    try {
      call = lease.client.makeUnaryRequest(
        method.path,
        method.requestSerialize,
        method.responseDeserialize,
        request,
        plan.metadata,
        { deadline: Date.now() + plan.timeoutMs },
        (error, reply) => {
          cancellation?.offAbort(onAbort);
          lease.done();
          if (error) reject(ownReason ?? errorFromGrpcStatus(error));
          else if (reply === undefined) reject(new TrestleError("The service sent no reply", Code.Internal));
          else resolve(reply);
        },
      );
    } catch (error) {
      lease.done();
      reject(startFailure(error));
      return;
    }
    const abort = (reason: TrestleError) => {
      ownReason ??= reason;
      call.cancel();
    };
    const onAbort = () => {
      if (cancellation) abort(cancelledByCaller(cancellation));
    };
    cancellation?.onAbort(onAbort);
    lease.track(abort);
  });
}

/**
 * Runs a server-streaming call and yields each reply as it arrives (backpressure: reading pauses while
 * replies wait for the consumer). Replies received before a failure are yielded before it is thrown.
 * Breaking out of the iteration, or the caller cancelling it, cancels the call on the wire.
 */
export async function* serverStreamCall<I, O>(
  method: grpc.MethodDefinition<I, O>,
  request: I,
  plan: CallPlan,
): AsyncGenerator<O> {
  const { lease, cancellation } = plan;
  if (cancellation?.aborted) {
    lease.done();
    throw cancelledByCaller(cancellation);
  }
  const queue: O[] = [];
  let ended = false;
  let failure: TrestleError | undefined;
  let ownReason: TrestleError | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const highWater = 16;

  let call: grpc.ClientReadableStream<O>;
  try {
    call = lease.client.makeServerStreamRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      request,
      plan.metadata,
      { deadline: Date.now() + plan.timeoutMs },
    );
  } catch (error) {
    lease.done();
    throw startFailure(error);
  }
  call.on("data", (reply: O) => {
    queue.push(reply);
    if (queue.length >= highWater) call.pause();
    notify();
  });
  call.on("end", () => {
    ended = true;
    notify();
  });
  call.on("error", (error: grpc.ServiceError) => {
    failure = ownReason ?? errorFromGrpcStatus(error);
    notify();
  });
  const abort = (reason: TrestleError) => {
    ownReason ??= reason;
    call.cancel();
  };
  const onAbort = () => {
    if (cancellation) abort(cancelledByCaller(cancellation));
  };
  cancellation?.onAbort(onAbort);
  lease.track(abort);

  try {
    while (true) {
      const reply = queue.shift();
      if (reply !== undefined) {
        if (call.isPaused() && queue.length < highWater / 2) call.resume();
        yield reply;
        continue;
      }
      if (failure) throw failure;
      if (ended) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    cancellation?.offAbort(onAbort);
    // The consumer stopped early: tell the service, so its engine stops too.
    if (!ended && !failure) abort(new TrestleError("The consumer stopped reading the stream", Code.Canceled));
    lease.done();
  }
}
