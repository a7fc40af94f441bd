#!/usr/bin/env bash
# The same create with curl: POST /plants with an Idempotency-Key (the id comes back in
# Location), the same request again (a replay: same plant, nothing new stored), then get it and
# delete it.
#
#   pnpm -C examples curl      (a server running; PLANT_STORE_TOKEN set; PLANT_STORE_URL optional)
set -euo pipefail

BASE=${PLANT_STORE_URL:-http://127.0.0.1:3000}
AUTH="Authorization: Bearer ${PLANT_STORE_TOKEN:?set PLANT_STORE_TOKEN to a token with plants:read and plants:write}"
KEY=$(node -p 'crypto.randomUUID()')   # any 1–255 characters of A–Z a–z 0–9 . _ : ~ + / = -

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "example failed: $*" >&2; exit 1; }
# The value of a response header of the last request (case-insensitive name).
header() { tr -d '\r' < "$tmp/headers" | sed -n "s/^$1: //Ip"; }

create() {
  curl -sS -X POST "$BASE/plants" -H "$AUTH" -H "Idempotency-Key: $KEY" \
    -H 'Content-Type: application/json' -d '{"name": "Monstera deliciosa", "tag": "tropical"}' \
    -D "$tmp/headers" -o "$tmp/body" -w '%{http_code}'
}

status=$(create)
location=$(header location)
echo "POST /plants: $status, Location: $location, ETag: $(header etag), body: $(cat "$tmp/body")"
[ "$status" = 201 ] || fail "expected 201, got $status: $(cat "$tmp/body")"
[[ $location =~ ^/plants/[0-9]+$ ]] || fail "expected Location: /plants/{id}"

# The answer could have been lost on the way: send the very same request with the same key.
status=$(create)
echo "the same POST again: $status, Location: $(header location), Idempotent-Replayed: $(header idempotent-replayed)"
[ "$status" = 201 ] && [ "$(header location)" = "$location" ] && [ "$(header idempotent-replayed)" = true ] ||
  fail "expected the saved 201 with the same Location, replayed"

status=$(curl -sS "$BASE$location" -H "$AUTH" -D "$tmp/headers" -o "$tmp/body" -w '%{http_code}')
echo "GET $location: $status $(cat "$tmp/body")"
[ "$status" = 200 ] || fail "expected 200"

status=$(curl -sS -X DELETE "$BASE$location" -H "$AUTH" -o /dev/null -w '%{http_code}')
echo "DELETE $location: $status"
[ "$status" = 204 ] || fail "expected 204"
