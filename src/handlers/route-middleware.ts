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
        throw new HttpError(429, "rate_limited", `too many probes from ${ctx.ip}; retry in ${wait} s. Nothing was charged.`, undefined, {
          "Retry-After": String(wait),
        });
      }
    }
    await next();
  };
}

/**
 * The owner routes cost a signature recovery (5-15 ms of CPU, in the worker pool) or a probe each,
 * for anyone who sends one: a client over OWNER_RATE_PER_CLIENT a minute is refused here, before
 * its body is read or any signature looked at, so a flood from one address costs a counter each.
 */
function refuseOverOwnerLimit(services: Pick<ListingsAreaContext, "work">): Middleware {
  return async (ctx, next) => {
    const wait = await services.work.ownerPerClient.take(ctx.ip);
    if (wait > 0) {
      throw new HttpError(
        429,
        "rate_limited",
        `too many owner requests (sign, claim, update, delist, refresh) from ${ctx.ip}; retry in ${wait} s. Nothing was changed.`,
        undefined,
        {
          "Retry-After": String(wait),
        },
      );
    }
    await next();
  };
}

/**
 * Verifying a payment costs a signature check (8-10 ms of CPU on the request thread when the
 * facilitator is in-process), for anyone who sends a PAYMENT-SIGNATURE header, valid or not: a
 * client over PAYMENT_RATE_PER_CLIENT a minute is refused here, before the header is decoded or the
 * facilitator asked. Requests without a payment (the 402 challenge) are not counted.
 */
function refuseOverPaymentLimit(services: Pick<ListingsAreaContext, "work">): Middleware {
  return async (ctx, next) => {
    if (ctx.get("payment-signature")) {
      const wait = await services.work.paymentPerClient.take(ctx.ip);
      if (wait > 0) {
        throw new HttpError(429, "rate_limited", `too many payments sent from ${ctx.ip}; retry in ${wait} s. Nothing was charged.`, undefined, {
          "Retry-After": String(wait),
        });
      }
    }
    await next();
  };
}

/** The middleware of particular operations, by canonical operation. */
export function routeMiddleware(services: Pick<ListingsAreaContext, "probe" | "work">): RouteMiddleware {
  const ownerLimit = refuseOverOwnerLimit(services);
  const paymentLimit = refuseOverPaymentLimit(services);
  return {
    createListing: [paymentLimit, refuseOverProbeLimit(services)],
    getDemoResource: [paymentLimit],
    postDemoResource: [paymentLimit],
    getOwnerSigningData: [ownerLimit],
    claimListing: [ownerLimit],
    updateListing: [ownerLimit],
    delistListing: [ownerLimit],
    refreshListing: [ownerLimit],
  };
}
