/**
 * The [Standard Schema](https://standardschema.dev) interface, v1: what zod 4, valibot, arktype and others
 * implement under `~standard`. Declared here, types only, so that core depends on nothing; any schema library
 * that implements the interface fits it structurally.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** The interface's members, under a key no schema library uses for anything else. */
  readonly "~standard": StandardSchemaV1.Props<Input, Output>;
}

export declare namespace StandardSchemaV1 {
  /** What a schema implements. */
  export interface Props<Input = unknown, Output = Input> {
    /** The version of the interface: 1. */
    readonly version: 1;
    /** The library that made the schema. */
    readonly vendor: string;
    /** Checks `value`: its output, or the issues found. */
    readonly validate: (value: unknown) => Result<Output> | Promise<Result<Output>>;
    /** The input and output types, for inference only. */
    readonly types?: Types<Input, Output> | undefined;
  }
  /** A validation's outcome. */
  export type Result<Output> = SuccessResult<Output> | FailureResult;
  /** A value the schema accepted, as it outputs it. */
  export interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  /** What the schema refused, issue by issue. */
  export interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  /** One problem, with where it is in the value. */
  export interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  /** A step of an issue's path. */
  export interface PathSegment {
    readonly key: PropertyKey;
  }
  /** The schema's input and output types. */
  export interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }
  /** The input type of a schema. */
  export type InferInput<Schema extends StandardSchemaV1> = NonNullable<
    Schema["~standard"]["types"]
  >["input"];
  /** The output type of a schema. */
  export type InferOutput<Schema extends StandardSchemaV1> = NonNullable<
    Schema["~standard"]["types"]
  >["output"];
}
