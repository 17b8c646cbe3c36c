// The routes of one area of the contract, from routeTable (generated/operations.ts), and a suite that
// calls each of them. The expectations are keyed by the area's canonical operations, so a test file
// that misses one of its area's operations, or names another area's, does not compile.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { areas, routeTable, type Area, type AreaOperationId } from "../../generated/operations.js";
import type { TestServer } from "../support/server.js";

export type Route = (typeof routeTable)[number];
export type AreaRoute<A extends Area> = Extract<Route, { area: A }>;

/** Every route of the area, in the router's order. */
export function routesOf<A extends Area>(area: A): AreaRoute<A>[] {
  return routeTable.filter((route): route is AreaRoute<A> => route.area === area);
}

const contract = JSON.parse(readFileSync("generated/openapi.json", "utf8")) as {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
};

/** The statuses the contract declares for a route (`default`, standing for any error, left out). */
export function declaredStatuses(route: Route): number[] {
  const responses = contract.paths[route.path]?.[route.method.toLowerCase()]?.responses ?? {};
  return Object.keys(responses)
    .filter((status) => status !== "default")
    .map(Number);
}

export interface RouteAnswer {
  route: Route;
  status: number;
  headers: Headers;
  /** The media type without parameters, or "" when there is no body. */
  type: string;
  text: string;
}

export const jsonOf = <T = Record<string, any>>(answer: RouteAnswer): T => JSON.parse(answer.text) as T;

/** What a route is called with, when a bare request would not reach the handler. */
export interface RouteRequest {
  /** The path parameters (`{ id }` of `/listings/{id}`). */
  params?: Record<string, string>;
  /** Appended to the path, e.g. `?query=weather`. */
  query?: string;
  /** Sent as JSON (POST routes). */
  body?: unknown;
  headers?: Record<string, string>;
}

export async function callRoute(server: TestServer, route: Route, request: RouteRequest = {}): Promise<RouteAnswer> {
  const headers: Record<string, string> = { ...request.headers };
  if (request.body !== undefined) headers["content-type"] ??= "application/json";
  const path = route.path.replace(/\{([A-Za-z0-9]+)\}/g, (_, name: string) => {
    const value = request.params?.[name];
    if (value === undefined) throw new Error(`${route.path} needs the path parameter ${name}`);
    return encodeURIComponent(value);
  });
  const response = await server.fetch(`${path}${request.query ?? ""}`, {
    method: route.method,
    headers,
    redirect: "manual",
    ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
  });
  const text = await response.text();
  const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim();
  return { route, status: response.status, headers: response.headers, type, text };
}

export interface Expectation {
  /** The status this suite's request gets; it must be one the contract declares for the route. */
  status: number;
  request?: RouteRequest | (() => RouteRequest);
  /** What a user would check in the answer (the test server already holds it to the contract). */
  check(answer: RouteAnswer): void | Promise<void>;
}

export type AreaExpectations<A extends Area> = { [O in AreaOperationId<A>]: Expectation };

/**
 * Calls every route of the area as the contract lists it: each answers the expected status, which
 * the contract declares, with a body its operation's check accepts. Unless `aliasesDiffer`, every
 * alias of an operation answers the bytes of its first route.
 */
export function describeAreaRoutes<A extends Area>(
  area: A,
  server: () => TestServer,
  expectations: AreaExpectations<A>,
  options: { aliasesDiffer?: boolean } = {},
): void {
  describe(`every ${area} route of the contract`, () => {
    const first = new Map<string, RouteAnswer>();

    it(`covers each operation of the ${area} area`, () => {
      expect(new Set(routesOf(area).map((route) => route.canonical))).toEqual(new Set(areas[area]));
    });

    for (const route of routesOf(area)) {
      it(`${route.method} ${route.path} (${route.operationId})`, async () => {
        const expected = expectations[route.canonical as AreaOperationId<A>];
        const request = typeof expected.request === "function" ? expected.request() : expected.request;
        expect(declaredStatuses(route), "a status the contract declares").toContain(expected.status);
        const answer = await callRoute(server(), route, request);
        expect(answer.status, answer.text.slice(0, 500)).toBe(expected.status);
        await expected.check(answer);
        const earlier = first.get(route.canonical);
        if (!earlier) first.set(route.canonical, answer);
        else if (!options.aliasesDiffer) {
          expect({ status: answer.status, type: answer.type }).toEqual({ status: earlier.status, type: earlier.type });
          expect(answer.text === earlier.text, `${route.path} answers the bytes of ${earlier.route.path}`).toBe(true);
        }
      });
    }
  });
}
