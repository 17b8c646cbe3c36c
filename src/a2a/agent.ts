// The A2A agent: the SDK's request handler around an executor that answers each message/send with
// one Message: a DataPart holding the market tool's structured result (or, when the tool refused,
// {isError, message}) and a TextPart with the tool's text: what the MCP tool of that name answers.
import { randomUUID } from "node:crypto";
import { Role, type AgentCard as CoreAgentCard, type Message, type Part } from "@a2a-js/sdk";
import { DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from "@a2a-js/sdk/server";
import type { components } from "../../generated/openapi.js";
import { agentCard } from "../documents/agent-manifests.js";
import type { MarketFacts } from "../market/facts.js";
import { callMarketTool } from "../market-tools/call.js";
import { laneOf, type MarketToolServices } from "../market-tools/context.js";
import type { ToolAnswer } from "../market-tools/tools.js";
import { skillRequestOf } from "./skills.js";

type ServedCard = components["schemas"]["AgentCard"];

const dataPart = (value: Record<string, unknown>): Part => ({
  content: { $case: "data", value },
  metadata: undefined,
  filename: "",
  mediaType: "application/json",
});
const textPart = (value: string): Part => ({
  content: { $case: "text", value },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain",
});

/** The parts of the answer: the tool's data, then its text. */
export function partsOf(answer: ToolAnswer): Part[] {
  const data = answer.isError ? { isError: true, message: answer.text } : answer.structuredContent;
  return [dataPart(data), textPart(answer.text)];
}

function reply(contextId: string, parts: Part[], metadata: Record<string, unknown>): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId: "",
    role: Role.ROLE_AGENT,
    parts,
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The caller of one HTTP request: the seller probe of validate_listing is rate-limited per client. */
interface Caller {
  services: MarketToolServices;
  clientIp: string;
}

function marketExecutor({ services, clientIp }: Caller): AgentExecutor {
  return {
    async execute(requestContext, eventBus) {
      const request = skillRequestOf(requestContext.userMessage);
      let answer: Message;
      if ("refused" in request) {
        const data = {
          isError: true,
          message: request.refused,
          ...(request.skill === undefined ? {} : { skill: request.skill }),
        };
        answer = reply(requestContext.contextId, [dataPart(data), textPart(request.refused)], { isError: true });
      } else {
        // A lane of its own, as a POST /mcp has: the message's catalog read takes its turn there.
        const result = await callMarketTool(
          { services, clientIp, turn: laneOf(services) },
          request.skill,
          request.arguments,
        );
        answer = reply(requestContext.contextId, partsOf(result), { skill: request.skill, isError: result.isError });
      }
      eventBus.publish({ kind: "message", data: answer });
      eventBus.finished();
    },
    // Every answer is a Message, never a Task: there is nothing running to cancel.
    async cancelTask() {},
  };
}

/** The served card (/.well-known/agent-card.json) in the SDK's (A2A 1.0) form: what its request handler checks versions and modes against. */
export function coreCardOf(market: MarketFacts): CoreAgentCard {
  const card: ServedCard = agentCard(market);
  return {
    name: card.name,
    description: card.description,
    supportedInterfaces: card.supportedInterfaces.map((entry) => ({ ...entry, tenant: "" })),
    provider: undefined,
    version: card.version,
    documentationUrl: card.documentationUrl,
    capabilities: { streaming: false, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map((skill) => ({
      ...skill,
      examples: skill.examples ?? [],
      inputModes: [],
      outputModes: [],
      securityRequirements: [],
    })),
    signatures: [],
  };
}

/**
 * A request handler for one HTTP request (stateless, as POST /mcp is): the caller's address goes
 * to validate_listing's per-client probe limit. Tasks are never created, so the store stays empty.
 */
export function marketRequestHandler(card: CoreAgentCard, caller: Caller): DefaultRequestHandler {
  return new DefaultRequestHandler(card, new InMemoryTaskStore(), marketExecutor(caller));
}
