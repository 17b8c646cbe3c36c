// Which skill a message asks for, and with which arguments: a DataPart {skill, arguments}, or
// metadata.skill (a DataPart then holds the arguments), or text naming a skill; any other text is a
// search of the market for its words ("I need a currency converter"), and no text lists the market.
import type { Message } from "@a2a-js/sdk";
import { isJsonObject } from "../contract/json.js";
import { MCP_TOOL_NAMES } from "../documents/agent-facts.js";
import type { MarketToolName } from "../market-tools/tools.js";

/** The skills are the market tools, by the same names. */
export type SkillName = MarketToolName;

export const SKILL_NAMES: readonly SkillName[] = MCP_TOOL_NAMES;

export type SkillRequest =
  { skill: SkillName; arguments: Record<string, unknown> } | { refused: string; skill?: string };

/** The skill ids of the card before the skills were the MCP tools. */
const FORMER_IDS: Record<string, SkillName> = { search_catalog: "list_market", list_endpoint: "how_to_sell" };

/** A skill id as sent (`list_market`, `list-market`, `LIST_MARKET`) or a former card id. */
export function skillNamed(id: string): SkillName | undefined {
  const normalized = id.trim().toLowerCase().replaceAll("-", "_");
  return SKILL_NAMES.find((name) => name === normalized) ?? FORMER_IDS[normalized];
}

/** Words that name a skill in plain text, checked in this order; no match searches the market for the text. */
const TEXT_CUES: ReadonlyArray<readonly [RegExp, SkillName]> = [
  [/\bvalidat/i, "validate_listing"],
  [/\b(sell|seller|selling)\b/i, "how_to_sell"],
  [/\b(buy|buyer|buying|purchase)\b/i, "how_to_buy"],
];

/** The longest question the search takes (the contract's `query`). */
const MAX_QUERY = 200;

function skillInText(text: string): SkillRequest {
  const named =
    SKILL_NAMES.find((name) => new RegExp(`\\b${name.replace("_", "[_ -]")}\\b`, "i").test(text)) ??
    TEXT_CUES.find(([cue]) => cue.test(text))?.[1];
  if (named) return { skill: named, arguments: {} };
  // Control characters are no part of a question (the contract refuses them); the words are.
  const query = text
    .replace(/\p{Cc}+/gu, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, MAX_QUERY);
  return { skill: "list_market", arguments: query ? { query } : {} };
}

function chosen(id: unknown, args: unknown): SkillRequest {
  if (typeof id !== "string") return { refused: `skill must be a string naming one of ${SKILL_NAMES.join(", ")}.` };
  const skill = skillNamed(id);
  if (!skill)
    return { refused: `Unknown skill ${JSON.stringify(id)}: the skills are ${SKILL_NAMES.join(", ")}.`, skill: id };
  if (args === undefined || args === null) return { skill, arguments: {} };
  if (isJsonObject(args)) return { skill, arguments: args };
  return {
    refused: `The arguments of ${skill} must be a JSON object (the tool's arguments), got ${Array.isArray(args) ? "an array" : typeof args}.`,
    skill,
  };
}

export function skillRequestOf(message: Message): SkillRequest {
  const data = message.parts.flatMap((part) => (part.content?.$case === "data" ? [part.content.value as unknown] : []));
  const named = data.find((value) => isJsonObject(value) && "skill" in value) as Record<string, unknown> | undefined;
  if (named) return chosen(named.skill, named.arguments);
  const metadataSkill = message.metadata?.skill as unknown;
  if (metadataSkill !== undefined) return chosen(metadataSkill, data[0] ?? message.metadata?.arguments);
  const text = message.parts.flatMap((part) => (part.content?.$case === "text" ? [part.content.value] : [])).join("\n");
  return skillInText(text);
}
