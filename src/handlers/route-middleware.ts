import type { Middleware } from "koa";
import { HttpError } from "../contract/errors.js";
import type { RouteMiddleware } from "../http/routes.js";
import type { Services } from "../services.js";

/**
 * A client over its seller-probe limit is refused before anything else is read: its body is not
 * parsed and its payment not sent to the facilitator for a request whose probe could not run
 * anyway. (The probe itself takes the token, so a request refused earlier for another reason
 * costs none.) POST /listings without a payment, the unpaid probe for the challenge, passes.
 */
function refuseOverProbeLimit(services: Pick<Services, "probe">, onlyWithPayment: boolean): Middleware {
  return async (ctx, next) => {
    if (!onlyWithPayment || ctx.get("payment-signature")) {
      const wait = services.probe.clientWait(ctx.ip);
      if (wait > 0) {
        throw new HttpError(429, "rate_limited", `Too many seller probes from ${ctx.ip}; retry in ${wait} s. Nothing was charged.`, undefined, { "Retry-After": String(wait) });
      }
    }
    await next();
  };
}

/** The middleware of the operations that probe a seller, by canonical operation. */
export function routeMiddleware(services: Pick<Services, "probe">): RouteMiddleware {
  return {
    validateListing: [refuseOverProbeLimit(services, false)],
    createListing: [refuseOverProbeLimit(services, true)],
  };
}
