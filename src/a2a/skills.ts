// Which skill a message asks for, and with which arguments: a DataPart {skill, arguments}, or
// metadata.skill (a DataPart then holds the arguments), or text naming a skill; anything else
// lists the market.
import type { Message } from "@a2a-js/sdk";
import { isJsonObject } from "../contract/json.js";
import { SKILL_NAMES, type SkillName } from "./market-tools.js";

export type SkillRequest = { skill: SkillName; arguments: Record<string, unknown> } | { refused: string; skill?: string };

/** The skill ids of the card before the skills were the MCP tools. */
const FORMER_IDS: Record<string, SkillName> = { search_catalog: "list_market", list_endpoint: "how_to_sell" };

/** A skill id as sent (`list_market`, `list-market`, `LIST_MARKET`) or a former card id. */
export function skillNamed(id: string): SkillName | undefined {
  const normalized = id.trim().toLowerCase().replaceAll("-", "_");
  return SKILL_NAMES.find((name) => name === normalized) ?? FORMER_IDS[normalized];
}

/** Words that name a skill in plain text, checked in this order; no match lists the market. */
const TEXT_CUES: ReadonlyArray<readonly [RegExp, SkillName]> = [
  [/\bvalidat/i, "validate_listing"],
  [/\b(sell|seller|selling)\b/i, "how_to_sell"],
  [/\b(buy|buyer|buying|purchase)\b/i, "how_to_buy"],
];

function skillInText(text: string): SkillName {
  const named = SKILL_NAMES.find((name) => new RegExp(`\\b${name.replace("_", "[_ -]")}\\b`, "i").test(text));
  return named ?? TEXT_CUES.find(([cue]) => cue.test(text))?.[1] ?? "list_market";
}

function chosen(id: unknown, args: unknown): SkillRequest {
  if (typeof id !== "string") return { refused: `skill must be a string naming one of ${SKILL_NAMES.join(", ")}.` };
  const skill = skillNamed(id);
  if (!skill) return { refused: `Unknown skill ${JSON.stringify(id)}: the skills are ${SKILL_NAMES.join(", ")}.`, skill: id };
  if (args === undefined || args === null) return { skill, arguments: {} };
  if (isJsonObject(args)) return { skill, arguments: args };
  return { refused: `The arguments of ${skill} must be a JSON object (the tool's arguments), got ${Array.isArray(args) ? "an array" : typeof args}.`, skill };
}

export function skillRequestOf(message: Message): SkillRequest {
  const data = message.parts.flatMap((part) => (part.content?.$case === "data" ? [part.content.value as unknown] : []));
  const named = data.find((value) => isJsonObject(value) && "skill" in value) as Record<string, unknown> | undefined;
  if (named) return chosen(named.skill, named.arguments);
  const metadataSkill = message.metadata?.skill as unknown;
  if (metadataSkill !== undefined) return chosen(metadataSkill, data[0] ?? message.metadata?.arguments);
  const text = message.parts.flatMap((part) => (part.content?.$case === "text" ? [part.content.value] : [])).join("\n");
  return { skill: skillInText(text), arguments: {} };
}
