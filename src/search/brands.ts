// Look-alike detection. Every verified listing's service name is a brand of its payTo; the brand's
// established owner is the payTo that carried it first (earliest listing). Another payTo's listing,
// verified or not (verifying costs only one's own fee), whose name is that brand give or take one
// character ("ScribeFIow"), starts with it ("Ledgerly Rates" for "Ledgerly FX": the brand's
// distinctive first word counts too), or whose description names it, is a look-alike of it: ranked
// below it and flagged. The evidence that clears it is the origin: a listing served from the same
// host as the established owner's listing is the owner's own.
import { brandKey, words } from "./text.js";

/** Shorter names are too often ordinary words to claim. */
const MIN_BRAND = 6;

/** The key and its one-deletion variants, so one edit (typo, swapped look-alike letter) still meets. */
function deletions(key: string): string[] {
  const out = [key];
  for (let i = 0; i < key.length; i++) out.push(key.slice(0, i) + key.slice(i + 1));
  return out;
}

export interface BrandClaim {
  brand: string;
  payTo: string;
}

/** One brand name's owner: a payTo, how many of its verified listings carry the name, since when, and from which origin (hashed host). */
interface Owner {
  brand: string;
  payTo: string;
  listings: number;
  since: number;
  origin: number;
}

/**
 * Plain arrays and strings rather than nested Maps and Sets: at 100k listings, most of them verified
 * under names of their own, the nested collections held about 100 MB.
 */
export class BrandRegistry {
  /** exact key -> the owners of the brands with that key. */
  private readonly owners = new Map<string, Owner[]>();
  /** deletion variant -> exact key(s). */
  private readonly variants = new Map<string, string | string[]>();
  /** Moves when a brand gains or loses an owner (callers cache their look-alike answers by it). */
  version = 0;

  private keysOf(name: string): string[] {
    const keys = [brandKey(name)];
    const first = words(name)[0];
    if (first && first.length >= MIN_BRAND && brandKey(first) !== keys[0]) keys.push(brandKey(first));
    return keys.filter((key) => key.length >= MIN_BRAND);
  }

  /** Counts a verified listing's name as its payTo's brand (`by` -1 when it goes), listed at `since` (epoch ms) from `origin`. */
  claim(name: string, payTo: string, by = 1, since = 0, origin = 0): void {
    const seller = payTo.toLowerCase();
    for (const key of this.keysOf(name)) {
      let owners = this.owners.get(key);
      if (!owners) {
        this.owners.set(key, (owners = []));
        for (const variant of deletions(key)) {
          const keys = this.variants.get(variant);
          if (keys === undefined) this.variants.set(variant, key);
          else if (typeof keys === "string") {
            if (keys !== key) this.variants.set(variant, [keys, key]);
          } else if (!keys.includes(key)) keys.push(key);
        }
      }
      const at = owners.findIndex((owner) => owner.brand === name && owner.payTo === seller);
      if (at < 0 || by < 0) this.version++;
      if (at < 0) {
        if (by > 0) owners.push({ brand: name, payTo: seller, listings: by, since, origin });
      } else {
        const owner = owners[at]!;
        if (by > 0 && since < owner.since) [owner.since, owner.origin] = [since, origin];
        if ((owner.listings += by) <= 0) owners.splice(at, 1);
      }
    }
  }

  /** The brand's established owner (its earliest listing) when that is another payTo, at another origin, listed before `listedAt`. */
  private ownedElsewhere(
    key: string,
    payTo: string,
    origin: number,
    listedAt: number,
    whole = false,
  ): BrandClaim | undefined {
    let first: Owner | undefined;
    for (const owner of this.owners.get(key) ?? [])
      if ((!first || owner.since < first.since) && (!whole || brandKey(owner.brand) === key)) first = owner;
    if (!first || first.payTo === payTo || first.since >= listedAt || (origin !== 0 && first.origin === origin))
      return undefined;
    return { brand: first.brand, payTo: first.payTo };
  }

  /** Whether a question names a known brand (a run of one to three of its words). */
  named(query: string): boolean {
    const keys = words(query.slice(0, 300)).map(brandKey);
    for (let i = 0; i < keys.length; i++) {
      let key = "";
      for (let n = 0; n < 3 && i + n < keys.length; n++) {
        key += keys[i + n]!;
        if (key.length >= MIN_BRAND && this.owners.has(key)) return true;
      }
    }
    return false;
  }

  /**
   * The established brand of another payTo this listing copies, if any: one that seller listed before
   * this listing (`listedAt`, epoch ms), so a later confusable copy never flags the original
   * (`origin`: the listing's resource's hashed host).
   */
  copiedBy(
    name: string | null,
    description: string,
    payTo: string,
    origin = 0,
    listedAt = Infinity,
  ): BrandClaim | undefined {
    const seller = payTo.toLowerCase();
    const candidates = new Set<string>();
    const nameKey = brandKey(name ?? "");
    if (nameKey.length >= MIN_BRAND) {
      for (const variant of deletions(nameKey)) {
        const keys = this.variants.get(variant);
        if (typeof keys === "string") candidates.add(keys);
        else for (const key of keys ?? []) candidates.add(key);
      }
      for (let end = MIN_BRAND; end < nameKey.length; end++)
        if (this.owners.has(nameKey.slice(0, end))) candidates.add(nameKey.slice(0, end));
    }
    // The description's runs of one to three words, as brand keys (a run's key is its words' keys
    // joined; runs shorter than a brand are not looked up).
    for (const key of candidates) {
      const claim = this.ownedElsewhere(key, seller, origin, listedAt);
      if (claim) return claim;
    }
    // A description names a brand by its whole name: "registrar" in a sentence is not "Registrar Hub".
    const keys = words(description.slice(0, 300)).map(brandKey);
    for (let i = 0; i < keys.length; i++) {
      let key = "";
      for (let n = 0; n < 3 && i + n < keys.length; n++) {
        key += keys[i + n]!;
        const claim =
          key.length >= MIN_BRAND && this.owners.has(key) && this.ownedElsewhere(key, seller, origin, listedAt, true);
        if (claim) return claim;
      }
    }
    return undefined;
  }
}
