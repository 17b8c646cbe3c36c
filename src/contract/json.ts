/** A JSON object (not null, not an array): what a parsed body, a challenge or a stored Json column is checked as. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
