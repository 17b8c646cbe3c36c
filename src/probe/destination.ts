// Where an outbound request to an address a user gave us may go: the host is resolved once and every
// address it has is judged (address-policy.ts); the request then connects to the judged address
// (pinned-request.ts), so a second DNS answer cannot point it elsewhere. Seller probes and webhook
// deliveries both go this way.
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { judgeAddress, type AddressVerdict } from "./address-policy.js";

export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export const defaultResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

export type Destination = Extract<AddressVerdict, { allowed: true }>;
export type DestinationRefusal = { code: "host_unresolvable" | "address_not_allowed"; detail: string };

/** Resolves the URL's host and judges every address: one refused address refuses the host. */
export async function resolveDestination(
  url: URL,
  options: { resolve?: Resolver; timeoutMs: number; allowLoopback: boolean; allowedWhat: string },
): Promise<Destination | DestinationRefusal> {
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: Array<{ address: string; family: number }>;
  if (isIP(hostname)) {
    addresses = [{ address: hostname, family: isIP(hostname) }];
  } else {
    try {
      addresses = await withDeadline((options.resolve ?? defaultResolver)(hostname), options.timeoutMs);
    } catch (error) {
      return {
        code: "host_unresolvable",
        detail: `${hostname} does not resolve: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      };
    }
    if (addresses.length === 0) return { code: "host_unresolvable", detail: `${hostname} has no address` };
  }
  const verdicts = addresses.map(({ address }) => judgeAddress(address, options.allowLoopback));
  const refused = verdicts.find((verdict) => !verdict.allowed);
  if (refused) {
    const where = isIP(hostname) ? `${hostname} is` : `${hostname} resolves to ${refused.address},`;
    return {
      code: "address_not_allowed",
      detail: `${where} ${refused.range}; only public unicast addresses are ${options.allowedWhat}`,
    };
  }
  return verdicts[0] as Destination;
}

export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ms} ms`), { code: "ETIMEOUT" })), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
