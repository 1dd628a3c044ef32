import type { Socket } from "node:net";

/** The first bytes every HTTP/2 client sends (RFC 9113 §3.4); an HTTP/1.x request never starts this way. */
const HTTP2_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

/** A client that opens a connection and says nothing for this long is dropped. */
const FIRST_BYTES_TIMEOUT_MS = 30_000;

/**
 * Reads the first bytes of a cleartext connection, tells HTTP/2 (prior knowledge, as gRPC clients speak it)
 * from HTTP/1.x, puts the bytes back and hands the socket on. Node's cleartext HTTP/2 server refuses
 * HTTP/1.1, so one port serving both needs this.
 *
 * The HTTP/2 session reads the bytes put back from the paused socket itself; the HTTP/1 parser takes them as
 * `data` events, so that socket is resumed after the hand-over.
 */
export function sniffHttpVersion(
  socket: Socket,
  handOver: (socket: Socket, version: "1.1" | "2") => void,
): void {
  let seen: Buffer = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    seen = seen.length === 0 ? chunk : Buffer.concat([seen, chunk]);
    const compared = Math.min(seen.length, HTTP2_PREFACE.length);
    const prefaceSoFar = seen.subarray(0, compared).equals(HTTP2_PREFACE.subarray(0, compared));
    if (prefaceSoFar && seen.length < HTTP2_PREFACE.length) return;
    socket.removeListener("data", onData);
    socket.removeListener("error", onError);
    socket.setTimeout(0);
    socket.pause();
    socket.unshift(seen);
    handOver(socket, prefaceSoFar ? "2" : "1.1");
    if (!prefaceSoFar) socket.resume();
  };
  const onError = () => socket.destroy();
  socket.on("error", onError);
  socket.on("data", onData);
  socket.setTimeout(FIRST_BYTES_TIMEOUT_MS, () => socket.destroy());
}
