// The webhooks area (spec/webhooks.tsp): subscribe an endpoint, the seller's typed data to sign, and
// the subscriber's own read and delete (with its secret as a bearer token).
import { HttpError } from "../contract/errors.js";
import type { Handler } from "../services.js";
import type { AreaHandlers } from "./area-handlers.js";

const createWebhook: Handler<"createWebhook"> = async (input, services) => {
  if (!input.body)
    throw new HttpError(
      400,
      "invalid_request",
      "Invalid request: the body must be a JSON subscription (see WebhookCreateRequest). Nothing was saved.",
    );
  return { status: 201, body: await services.webhooks.create(input.body, input.clientIp) };
};

const getWebhookSigningData: Handler<"getWebhookSigningData"> = (input, services) => ({
  status: 200,
  body: services.webhooks.signingDocument(input.query.payTo, input.query.url),
});

const getWebhook: Handler<"getWebhook"> = async (input, services) => ({
  status: 200,
  body: await services.webhooks.show(input.params.id, input.headers.authorization),
});

const deleteWebhook: Handler<"deleteWebhook"> = async (input, services) => ({
  status: 200,
  body: await services.webhooks.remove(input.params.id, input.headers.authorization),
});

export const webhooksHandlers: AreaHandlers<"webhooks"> = {
  createWebhook,
  getWebhookSigningData,
  getWebhook,
  deleteWebhook,
};
