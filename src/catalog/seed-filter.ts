import type { operations } from "../../generated/openapi.js";

/** The seed filter parameters, as the contract declares them on the catalog reads. */
export type SeedFilterQuery = Pick<
  NonNullable<operations["getCatalog"]["parameters"]["query"]>,
  "includeSeed" | "excludeSeed" | "leftoverSeed" | "foreign"
>;

/**
 * Whether leftover seed rows are shown. Catalog reads are foreign-first: seed rows appear only
 * when a parameter asks for them (`includeSeed=true`, `excludeSeed=false`, `leftoverSeed=true`,
 * `foreign=false`). On `/search` (the lenient search), `excludeSeed=true` and
 * `leftoverSeed=false` explicitly drop seed rows and win over any parameter that asks for them.
 */
export function showsSeed(query: SeedFilterQuery, route: "catalog" | "search"): boolean {
  const asked =
    query.includeSeed === true ||
    query.excludeSeed === false ||
    query.leftoverSeed === "true" ||
    query.foreign === false;
  if (route === "search" && (query.excludeSeed === true || query.leftoverSeed === "false")) return false;
  return asked;
}

/** True when the request named none of the seed filter parameters (the default view). */
export function isDefaultSeedView(query: SeedFilterQuery): boolean {
  return (
    query.includeSeed === undefined &&
    query.excludeSeed === undefined &&
    query.leftoverSeed === undefined &&
    query.foreign === undefined
  );
}
