import { utf8Bytes } from "../http/body.js";
import type { McpRevision } from "./wire/revisions.js";

/**
 * A result in its client's revision whose JSON text is made once, however many requests it answers. `toJSON`
 * gives the encoded value, so a writer that serializes the whole message (an SSE stream, a batch, stdio) writes
 * it as any other result; the HTTP writer of a single answer splices {@link json} in instead.
 */
export class EncodedResult {
  #json: Buffer | undefined = undefined;

  constructor(readonly value: unknown) {}

  /**
   * The UTF-8 bytes of the value's JSON text, made on first use and kept. Bytes rather than a string: a large
   * answer written from a new string costs a fresh large allocation, a flattening and an encoding each time (for
   * a 380 KB `tools/list` page more than `JSON.stringify` itself).
   */
  get json(): Buffer {
    this.#json ??= utf8Bytes(JSON.stringify(this.value));
    return this.#json;
  }

  toJSON(): unknown {
    return this.value;
  }

  /**
   * The whole JSON-RPC answer carrying this result under `id`, as parts to write in order: only the envelope is
   * new, the result's bytes are the ones made once.
   */
  answerParts(id: string | number): Buffer[] {
    return [
      Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`),
      this.json,
      Buffer.from("}"),
    ];
  }
}

/**
 * A result a handler answers many requests with, the same for every client of one revision (a page of a large
 * list): the dispatcher encodes it for each revision and era once and keeps what it made here. The revisions are
 * the router's own (a request's revision is checked before it is dispatched), so the encodings it holds are
 * bounded.
 */
export class ReusableResult<T> {
  readonly #encoded = new Map<string, EncodedResult>();

  /**
   * @param value the result in the newest shapes.
   * @param encode puts `value` into a revision's shapes.
   */
  constructor(
    readonly value: T,
    readonly encode: (value: T, revision: McpRevision) => object,
  ) {}

  /**
   * The result for a client of `revision` in `era`, with what `finish` adds for that era (a stateless client's
   * envelope), made the first time it is asked for.
   */
  encodedFor(
    revision: McpRevision,
    era: "session" | "stateless",
    finish: (encoded: object) => unknown,
  ): EncodedResult {
    const key = `${era} ${revision}`;
    let encoded = this.#encoded.get(key);
    if (encoded === undefined) {
      encoded = new EncodedResult(finish(this.encode(this.value, revision)));
      this.#encoded.set(key, encoded);
    }
    return encoded;
  }
}
