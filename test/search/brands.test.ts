// Look-alikes (src/search/brands.ts): a copied name is caught by its whole name, one edit, or the
// brand's distinctive first word; a description only by the brand's whole name, so an ordinary word
// that happens to start a brand ("registrar" of "Registrar Hub") does not flag a listing.
import { describe, expect, it } from "vitest";
import { BrandRegistry } from "../../src/search/brands.js";

const ORIGINAL = "0x00000000000000000000000000000000000000aa";
const OTHER = "0x00000000000000000000000000000000000000bb";

function registry(): BrandRegistry {
  const brands = new BrandRegistry();
  brands.claim("Registrar Hub", ORIGINAL, 1, 1_000, 7);
  return brands;
}

describe("look-alikes of an established brand", () => {
  it("does not flag a description that uses the brand's first word as an ordinary word", () => {
    const claim = registry().copiedBy(
      "WhoisXpress",
      "Look up a domain's registrar, owner and expiry date.",
      OTHER,
      9,
      5_000,
    );
    expect(claim).toBeUndefined();
  });

  it("flags a description that names the whole brand", () => {
    const claim = registry().copiedBy("DomainDesk", "The same data as Registrar Hub, cheaper.", OTHER, 9, 5_000);
    expect(claim).toEqual({ brand: "Registrar Hub", payTo: ORIGINAL });
  });

  it("flags a name one edit away, or one that starts with the brand's distinctive first word", () => {
    expect(registry().copiedBy("Registrar Hob", "Domain lookups.", OTHER, 9, 5_000)?.brand).toBe("Registrar Hub");
    expect(registry().copiedBy("Registrar Pro", "Domain lookups.", OTHER, 9, 5_000)?.brand).toBe("Registrar Hub");
  });

  it("never flags the original's own seller, its own host, or a listing older than the brand", () => {
    expect(registry().copiedBy("Registrar Hub", "Registrar Hub.", ORIGINAL, 9, 5_000)).toBeUndefined();
    expect(registry().copiedBy("Registrar Hub", "Registrar Hub.", OTHER, 7, 5_000)).toBeUndefined();
    expect(registry().copiedBy("Registrar Hub", "Registrar Hub.", OTHER, 9, 500)).toBeUndefined();
  });
});
