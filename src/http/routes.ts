import KoaRouter from "@koa/router";
import type { Middleware } from "koa";
import { routeTable, type CanonicalOperationId, type RoutedOperationId } from "../../generated/operations.js";
import { HttpError } from "../contract/errors.js";

/** Middleware some operations run before their handler, by canonical operation (all its routes). */
export type RouteMiddleware = Partial<Record<CanonicalOperationId, Middleware[]>>;

/** Allow lists methods in the contract's order, HEAD (answered wherever GET is) last. */
const ALLOW_ORDER = ["GET", "PUT", "POST", "DELETE", "PATCH", "OPTIONS", "HEAD"];

/** The contract's `/listings/{id}` as @koa/router spells it: `/listings/:id`. */
const koaPath = (path: string) => path.replace(/\{([A-Za-z0-9]+)\}/g, ":$1");

/**
 * Mounts every route of the contract (generated/operations.ts `routeTable`) on @koa/router: the
 * route's own middleware, then `answer(operationId)`. Paths are matched as the contract spells
 * them (case-sensitive); a trailing slash is ignored. A path the contract has with another method
 * is 405 with `Allow`; OPTIONS (not a CORS preflight, which @koa/cors answers) is 200 with `Allow`.
 */
export function mountRoutes(
  answer: (operationId: RoutedOperationId) => Middleware,
  routeMiddleware: RouteMiddleware = {},
): Middleware[] {
  const router = new KoaRouter({ sensitive: true, strict: false });
  // A literal path wins over a parameter in the same place: `/listings/feed` is the feed, not listing "feed".
  const literalFirst = [...routeTable].sort((a, b) => Number(a.path.includes("{")) - Number(b.path.includes("{")));
  for (const route of literalFirst) {
    const own = routeMiddleware[route.canonical] ?? [];
    router.register(koaPath(route.path), [route.method], [...own, answer(route.operationId)], {
      name: route.operationId,
    });
  }
  const allowOf = (path: string) => {
    const methods = new Set<string>();
    for (const layer of router.match(path.length > 1 ? path.replace(/\/+$/, "") : path, "GET").path)
      for (const method of layer.methods) methods.add(method);
    return [...methods].sort((a, b) => ALLOW_ORDER.indexOf(a) - ALLOW_ORDER.indexOf(b)).join(", ");
  };

  const refuseUnrouted: Middleware = async (ctx, next) => {
    await next();
    if (ctx.status === 200 && ctx.method === "OPTIONS") {
      ctx.set("Allow", allowOf(ctx.path));
    } else if (ctx.status === 405 || ctx.status === 501) {
      const allow = allowOf(ctx.path);
      throw new HttpError(
        405,
        "method_not_allowed",
        `${ctx.method} is not allowed on ${ctx.path}; use ${allow}.`,
        undefined,
        { Allow: allow },
      );
    } else if (ctx.status === 404 && ctx.body == null) {
      throw new HttpError(
        404,
        "not_found",
        `No route ${ctx.method} ${ctx.path}. Every route is listed in /openapi.json.`,
      );
    }
  };
  // @koa/router decodes path parameters with decodeURIComponent, which throws on a malformed escape
  // (`/listings/%zz`): such a path names no resource, and saying so is the client's 400, not our 500.
  const refuseMalformedPath: Middleware = async (ctx, next) => {
    try {
      decodeURIComponent(ctx.path);
    } catch {
      throw new HttpError(400, "invalid_path", "The path is not valid percent-encoded UTF-8.", [
        { in: "path", field: "path", message: "malformed percent-encoding" },
      ]);
    }
    await next();
  };
  return [refuseUnrouted, refuseMalformedPath, router.routes() as Middleware, router.allowedMethods() as Middleware];
}
