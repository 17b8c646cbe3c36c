// Look-alike detection. Every verified listing's service name is a brand of its payTo. Another
// payTo's unverified listing whose name is that brand give or take one character ("ScribeFIow"),
// starts with it ("Ledgerly Rates" for "Ledgerly FX": the brand's distinctive first word counts
// too), or whose description names it, is a look-alike of it: ranked below it and flagged.
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

export class BrandRegistry {
  /** exact key -> brand (display name) -> owner payTos with a verified listing of that name. */
  private readonly owners = new Map<string, Map<string, Map<string, number>>>();
  /** deletion variant -> exact keys. */
  private readonly variants = new Map<string, Set<string>>();
  /** Moves when a brand gains or loses an owner (callers cache their look-alike answers by it). */
  version = 0;

  private keysOf(name: string): string[] {
    const keys = [brandKey(name)];
    const first = words(name)[0];
    if (first && first.length >= MIN_BRAND && brandKey(first) !== keys[0]) keys.push(brandKey(first));
    return keys.filter((key) => key.length >= MIN_BRAND);
  }

  /** Counts a verified listing's name as its payTo's brand (`by` -1 when it goes). */
  claim(name: string, payTo: string, by = 1): void {
    for (const key of this.keysOf(name)) {
      let brands = this.owners.get(key);
      if (!brands) {
        this.owners.set(key, (brands = new Map()));
        for (const variant of deletions(key)) {
          const keys = this.variants.get(variant) ?? new Set();
          keys.add(key);
          this.variants.set(variant, keys);
        }
      }
      const payTos = brands.get(name) ?? new Map<string, number>();
      if (!payTos.has(payTo.toLowerCase()) || by < 0) this.version++;
      const count = (payTos.get(payTo.toLowerCase()) ?? 0) + by;
      if (count > 0) payTos.set(payTo.toLowerCase(), count);
      else payTos.delete(payTo.toLowerCase());
      if (payTos.size) brands.set(name, payTos);
      else brands.delete(name);
    }
  }

  private ownedElsewhere(key: string, payTo: string): BrandClaim | undefined {
    for (const [brand, payTos] of this.owners.get(key) ?? []) {
      if (payTos.has(payTo)) return undefined;
      const owner = payTos.keys().next().value;
      if (owner) return { brand, payTo: owner };
    }
    return undefined;
  }

  /** The verified brand of another payTo this listing copies, if any. */
  copiedBy(name: string | null, description: string, payTo: string): BrandClaim | undefined {
    const seller = payTo.toLowerCase();
    const candidates = new Set<string>();
    const nameKey = brandKey(name ?? "");
    if (nameKey.length >= MIN_BRAND) {
      for (const variant of deletions(nameKey)) for (const key of this.variants.get(variant) ?? []) candidates.add(key);
      for (let end = MIN_BRAND; end < nameKey.length; end++) if (this.owners.has(nameKey.slice(0, end))) candidates.add(nameKey.slice(0, end));
    }
    // The description's runs of one to three words, as brand keys.
    const text = words(description.slice(0, 300));
    for (let i = 0; i < text.length; i++)
      for (let n = 1; n <= 3 && i + n <= text.length; n++) {
        const key = brandKey(text.slice(i, i + n).join(""));
        if (this.owners.has(key)) candidates.add(key);
      }
    for (const key of candidates) {
      const claim = this.ownedElsewhere(key, seller);
      if (claim) return claim;
    }
    return undefined;
  }
}
