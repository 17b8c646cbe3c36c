/** A JSON object (not null, not an array): what a parsed body, a challenge or a stored Json column is checked as. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Freezes a JSON value and everything in it, for a value shared by every reader: none may change it for all. */
export function deepFreeze<T>(node: T): T {
  if (node === null || typeof node !== "object" || Object.isFrozen(node)) return node;
  Object.freeze(node);
  for (const value of Object.values(node)) deepFreeze(value);
  return node;
}
