#!/usr/bin/env bash
# @@NAME@@: find a listing and buy it. Reads the free catalog, calls the listing's
# resource, and pays the seller's own x402 challenge: the seller is paid directly, the marketplace
# never holds funds. Served at @@SCRIPT_URL@@
#
# Needs: bash, curl, and Node.js 20 or later with the official x402 SDK (@x402/core, @x402/evm)
# and viem installed in X402_SDK_DIR. A checkout of this service has them after `npm ci`;
# elsewhere run `npm install @x402/core @x402/evm viem` in an empty directory once. curl makes
# every request; node only reads JSON and signs the payment. No account and no API key.
#
# Environment:
#   QUERY              text to search the catalog for; default: the first listing of the catalog
#   RESOURCE           buy exactly this listed resource URL instead
#   INCLUDE_SEED       true to include the marketplace's own /kr-* demo endpoints
#   HEALTH             which listings to consider: healthy (default: their endpoint answered its last
#                      re-probes with the listed terms), or any, unhealthy, drifted
#   REQUEST_BODY       JSON body sent to POST resources; default {}
#   BUYER_PRIVATE_KEY  0x key of the paying wallet. It signs an EIP-3009 authorization here and is
#                      never sent anywhere. Default: buyer BUYER_INDEX (0) of CHAIN_FILE, when that
#                      file exists (the local development chain: not real money).
#   CHAIN_FILE         default .dev/chain.json (written by `npm start` with its local chain)
#   BASE_URL           default @@BASE_URL@@
#   X402_SDK_DIR       the directory whose node_modules has the SDK; default: the current directory
#   CURL_CA_BUNDLE     curl's own: a CA file, if the seller's certificate needs one
#
# The payment is signed only if the seller's challenge matches the catalog: same network, token
# and payTo, and an amount no higher than listed.
# Prints the seller's answer on stdout and progress on stderr.
# Exit status: 0 bought; 1 nothing to buy, or refused; 2 usage; other: curl failed.
set -euo pipefail

BASE_URL="${BASE_URL:-@@BASE_URL@@}"
BASE_URL="${BASE_URL%/}"
CHAIN_FILE="${CHAIN_FILE:-.dev/chain.json}"
X402_SDK_DIR="${X402_SDK_DIR:-.}"

X402_HELPER=$(cat <<'X402_HELPER_JS'
@@X402_HELPER@@
X402_HELPER_JS
)
helper() { (cd "$X402_SDK_DIR" && node --input-type=module -e "$X402_HELPER" -- "$@"); }
say() { printf '%s\n' "$*" >&2; }
header() { grep -i "^$1:" "$2" | head -n 1 | cut -d: -f2- | tr -d ' \r' || true; }
refused() { say "$1"; cat "$2" >&2; printf '\n' >&2; exit 1; }

if [ -z "${BUYER_PRIVATE_KEY:-}" ]; then
  if [ ! -r "$CHAIN_FILE" ]; then
    say "BUYER_PRIVATE_KEY is not set and there is no $CHAIN_FILE to take a development key from"
    exit 2
  fi
  BUYER_PRIVATE_KEY=$(helper key < "$CHAIN_FILE")
  say "paying with buyer ${BUYER_INDEX:-0} of $CHAIN_FILE (local development chain, not real money)"
fi
export BUYER_PRIVATE_KEY

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

find=(--get)
catalog="$BASE_URL/discovery/resources"
if [ -n "${RESOURCE:-${QUERY:-}}" ]; then
  catalog="$BASE_URL/discovery/search"
  find+=(--data-urlencode "query=${RESOURCE:-$QUERY}")
fi
[ "${INCLUDE_SEED:-false}" != true ] || find+=(--data-urlencode includeSeed=true)
find+=(--data-urlencode "health=${HEALTH:-healthy}")
say "1/3 finding a listing: GET $catalog"
curl -sS --fail "${find[@]}" "$catalog" > "$work/catalog.json"
IFS=$'\t' read -r resource method price requirement < <(RESOURCE="${RESOURCE:-}" helper pick < "$work/catalog.json")
say "    $method $resource at $price USDC"

body="${REQUEST_BODY:-}"
[ -n "$body" ] || body='{}'
call_seller() {
  local request=(-sS -D "$work/headers" -o "$work/answer" -w '%{http_code}' -X "$method" "$@")
  [ "$method" != POST ] || request+=(-H 'content-type: application/json' --data-binary "$body")
  curl "${request[@]}" "$resource"
}

say "2/3 calling the seller unpaid"
status=$(call_seller)
if [ "$status" != 402 ]; then
  case "$status" in 2*) say "the seller answered $status without asking for payment; nothing was paid" && cat "$work/answer" && printf '\n' && exit 0 ;; esac
  refused "the seller answered $status instead of 402; nothing was paid:" "$work/answer"
fi
challenge=$(header payment-required "$work/headers")
signature=$(CHALLENGE="$challenge" CHALLENGE_BODY="$(cat "$work/answer")" EXPECT="$requirement" helper sign)

say "3/3 paying the seller and repeating the request"
status=$(call_seller -H "PAYMENT-SIGNATURE: $signature")
settlement=$(header payment-response "$work/headers")
[ -z "$settlement" ] || say "    settlement: $(PAYMENT_RESPONSE="$settlement" helper settlement)"
case "$status" in 2*) ;; *) refused "the paid request answered $status:" "$work/answer" ;; esac
cat "$work/answer"
printf '\n'
