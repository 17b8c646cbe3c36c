// The sync area (spec/sync.tsp): the incremental mirror API and the signed snapshot.
import { taggedJson } from "../contract/rendered.js";
import { catalogState } from "../queries/catalog.js";
import { signedSnapshot, syncPage } from "../queries/sync.js";
import type { Handler } from "../services.js";
import type { AreaHandlers } from "./area-handlers.js";

const getSyncListings: Handler<"getSyncListings"> = async (input, services) => ({
  status: 200,
  body: await syncPage(services, input.query),
});

const getSyncSnapshot: Handler<"getSyncSnapshot"> = async (_input, services) => {
  const { token } = await catalogState(services);
  return taggedJson(await signedSnapshot(services, token), token);
};

export const syncHandlers: AreaHandlers<"sync"> = { getSyncListings, getSyncSnapshot };
