#!/usr/bin/env bash
# @@NAME@@: list an x402-paid endpoint. Validates the listing for free
# (POST /listings/validate), then lists it with POST /listings, paying the @@FEE_USDC@@ USDC
# listing fee with x402. Served at @@SCRIPT_URL@@ and @@BASE_URL@@/curl-list.sh
#
# Needs: bash, curl, and Node.js 20 or later with the official x402 SDK (@x402/core, @x402/evm)
# and viem installed in X402_SDK_DIR. A checkout of this service has them after `npm ci`;
# elsewhere run `npm install @x402/core @x402/evm viem` in an empty directory once. curl makes
# every request; node only reads JSON and signs the payment. No account, no API key and no
# package of this marketplace is needed.
#
# Environment:
#   LISTING_FILE       the listing body as a JSON file (required); example: @@BASE_URL@@/listings/example
#   BUYER_PRIVATE_KEY  0x key of the wallet that pays the fee. It signs an EIP-3009 authorization
#                      here and is never sent anywhere. Default: buyer BUYER_INDEX (0) of
#                      CHAIN_FILE, when that file exists (the local development chain: not real money).
#   CHAIN_FILE         default .dev/chain.json (written by `npm start` with its local chain)
#   BASE_URL           default @@BASE_URL@@
#   X402_SDK_DIR       the directory whose node_modules has the SDK; default: the current directory
#
# Prints the created listing (JSON) on stdout and progress on stderr.
# Exit status: 0 listed; 1 refused (validation, payment or listing); 2 usage; other: curl failed.
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

if [ -z "${LISTING_FILE:-}" ] || [ ! -r "$LISTING_FILE" ]; then
  say "LISTING_FILE must name a readable JSON listing body; start from $BASE_URL/listings/example"
  exit 2
fi
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
post_listing() {
  curl -sS -D "$work/headers" -o "$work/answer" -w '%{http_code}' -X POST "$BASE_URL/listings$1" \
    -H 'content-type: application/json' "${@:2}" --data-binary "@$LISTING_FILE"
}

say "1/3 validating for free: POST $BASE_URL/listings/validate"
status=$(post_listing /validate)
[ "$status" = 200 ] || refused "validation answered $status; nothing was charged:" "$work/answer"

say "2/3 asking for the fee challenge: POST $BASE_URL/listings without payment"
status=$(post_listing "")
[ "$status" = 402 ] || refused "expected 402, got $status; nothing was charged:" "$work/answer"
challenge=$(header payment-required "$work/headers")
fee=$(curl -sS --fail "$BASE_URL/fee.json")
say "    fee: $(printf '%s' "$fee" | helper get usdc) USDC to $(printf '%s' "$fee" | helper get payTo) on $(printf '%s' "$fee" | helper get network)"
signature=$(CHALLENGE="$challenge" CHALLENGE_BODY="$(cat "$work/answer")" EXPECT="$fee" helper sign)

say "3/3 listing, paying the fee: POST $BASE_URL/listings with PAYMENT-SIGNATURE"
status=$(post_listing "" -H "PAYMENT-SIGNATURE: $signature")
settlement=$(header payment-response "$work/headers")
[ -z "$settlement" ] || say "    settlement: $(PAYMENT_RESPONSE="$settlement" helper settlement)"
[ "$status" = 200 ] || refused "the listing answered $status:" "$work/answer"
cat "$work/answer"
printf '\n'
