import type { Middleware } from "koa";
import { HttpError } from "../contract/errors.js";
import type { RouteMiddleware } from "../http/routes.js";
import type { ListingsAreaContext } from "../services.js";

/**
 * A paying client over its seller-probe limit is refused before anything else is read: its body
 * is not parsed and its payment not sent to the facilitator for a listing whose probe could not
 * run anyway. (The probe itself takes the token, so a request refused earlier for another reason
 * costs none.) Without a payment, nothing costs a remote call before the probe: the unpaid POST
 * /listings gets its challenge, and the free dry run meets the limit at the probe, after its body
 * is checked, so a malformed body is still told what is wrong with it.
 */
function refuseOverProbeLimit(services: Pick<ListingsAreaContext, "probe">): Middleware {
  return async (ctx, next) => {
    if (ctx.get("payment-signature")) {
      const wait = await services.probe.clientWait(ctx.ip);
      if (wait > 0) {
        throw new HttpError(429, "rate_limited", `too many probes from ${ctx.ip}; retry in ${wait} s. Nothing was charged.`, undefined, { "Retry-After": String(wait) });
      }
    }
    await next();
  };
}

/** The middleware of particular operations, by canonical operation. */
export function routeMiddleware(services: Pick<ListingsAreaContext, "probe">): RouteMiddleware {
  return { createListing: [refuseOverProbeLimit(services)] };
}
