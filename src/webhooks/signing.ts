// Standard Webhooks (https://www.standardwebhooks.com): a `whsec_` secret per subscription, and the
// webhook-id / webhook-timestamp / webhook-signature headers, made by the specification's own
// library so any of its verifiers (in every language) accepts them.
import { createHash, randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";

/** A new signing secret: 24 random bytes, base64, with the specification's prefix. */
export function newSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

/** What is stored to recognise the secret as a bearer credential (the secret itself signs, so it is stored too). */
export function secretHash(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

export function newChallenge(): string {
  return randomBytes(18).toString("base64url");
}

/** The three headers of one delivery attempt of `payload` (the exact bytes sent). */
export function signedHeaders(secret: string, messageId: string, payload: string, at: Date): Record<string, string> {
  const signature = new Webhook(secret).sign(messageId, at, payload);
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signature,
  };
}

/** The body a subscriber receives: the Standard Webhooks envelope around an event's (or the challenge's) data. */
export function eventPayload(type: string, at: Date, data: unknown): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data });
}
