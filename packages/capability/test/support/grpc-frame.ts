/** One length-prefixed gRPC message (gRPC-Web frames it the same way): the flag byte, the length, the bytes. */
export function grpcFrame(message: Uint8Array, flag = 0): Buffer {
  const header = Buffer.alloc(5);
  header[0] = flag;
  header.writeUInt32BE(message.length, 1);
  return Buffer.concat([header, message]);
}
