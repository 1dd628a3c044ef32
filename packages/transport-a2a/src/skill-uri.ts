import { Code, TrestleError } from "@trestle/core";

/** The scheme of a skill's catalog location: `a2a://<forward>/skills/<skillId>`. */
export const A2A_SKILL_URI_SCHEME = "a2a:";

/** What a skill's catalog location names. */
export interface A2aSkillAddress {
  /** The forward (agent) the skill belongs to. */
  forward: string;
  /** The skill's id on the agent's card. */
  skillId: string;
}

/**
 * The catalog location of skill `skillId` of the agent behind forward `forward`: what a call reads back to know
 * which skill it is for (A2A messages carry no skill field; the transport names it in the message's metadata).
 *
 * @example
 * ```ts
 * a2aSkillUri("travel", "book flight"); // "a2a://travel/skills/book%20flight"
 * ```
 */
export function a2aSkillUri(forward: string, skillId: string): string {
  return `a2a://${encodeURIComponent(forward)}/skills/${encodeURIComponent(skillId)}`;
}

/**
 * Reads a location made by {@link a2aSkillUri}.
 * @throws TrestleError `InvalidArgument` when `uri` is absent or not such a location.
 */
export function parseA2aSkillUri(uri: string | undefined): A2aSkillAddress {
  const match = /^a2a:\/\/([^/]+)\/skills\/([^/]+)$/.exec(uri ?? "");
  if (!match) {
    throw new TrestleError(
      `The tool's location '${uri ?? ""}' is not an A2A skill (a2a://<forward>/skills/<skill>)`,
      Code.InvalidArgument,
    );
  }
  return {
    forward: decodeURIComponent(match[1] as string),
    skillId: decodeURIComponent(match[2] as string),
  };
}
