import { type BridgeTransport, type Interceptor, withInterceptors } from "@trestle/core";
import type { TransportSelector } from "@trestle/core/routing";

/**
 * A {@link TransportSelector} whose transports run every call through `interceptors` (the first is the
 * outermost), each transport wrapped once and reused. For a composition root that intercepts a selector it
 * did not build — the one the registry probes through, say, whose interceptors need the registry itself.
 *
 * @example
 * ```ts
 * const probing = createTransportSelector({ byProtocol });
 * const registry = await createRegistry({ store, transports: probing });
 * const calling = interceptTransports(probing, [concurrencyLimit(limitsFor), outcomeFeedback(registry.resolver)]);
 * ```
 */
export function interceptTransports(
  selector: TransportSelector,
  interceptors: readonly Interceptor[],
): TransportSelector {
  if (interceptors.length === 0) return selector;
  const wrappers = new WeakMap<BridgeTransport, BridgeTransport>();
  return {
    transportFor(target) {
      const inner = selector.transportFor(target);
      let wrapper = wrappers.get(inner);
      if (!wrapper) {
        wrapper = withInterceptors(inner, interceptors);
        wrappers.set(inner, wrapper);
      }
      return wrapper;
    },
    release: (target) => selector.release(target),
    close: () => selector.close(),
  };
}
