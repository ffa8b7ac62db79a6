#!/usr/bin/env bash
# Lighthouse 12 with its mobile defaults (simulated slow 4G and a 4× slower CPU) on the pages a
# customer's phone opens most: home, What's on, the ticket step, the purchase's seat step, the
# booking page and the seat swap. The service runs on its embedded defaults in a fresh data
# directory; a cookie jar carries the visit (an order with two Adults, booking 100004 found) to
# Lighthouse. Prints one line per page: performance and accessibility scores, LCP, TBT, CLS.
set -euo pipefail
cd "$(dirname "$0")/.."
ADDR="${LH_ADDR:-127.0.0.1:18498}"
B="http://$ADDR"
npm install --no-save --no-audit --no-fund --prefix .cache/lh lighthouse@12 >/dev/null
go build -o /tmp/cinema-lighthouse ./cmd/web
dir=$(mktemp -d)
/tmp/cinema-lighthouse -data-dir "$dir" -addr "$ADDR" >"$dir/web.log" 2>&1 &
pid=$!
trap 'kill $pid; rm -rf "$dir"' EXIT
for _ in $(seq 1 100); do curl -fsS -o /dev/null "$B/readyz" 2>/dev/null && break; sleep 0.2; done
jar="$dir/cookies"
csrf() { curl -fsS -c "$jar" -b "$jar" "$1" | grep -o 'name="_csrf" value="[^"]*"' | head -1 | sed 's/.*value="//;s/"$//'; }
run() { # URL NAME
  local cookie
  cookie=$(grep HttpOnly "$jar" 2>/dev/null | awk '{printf "%s=%s; ", $6, $7}' || true)
  CHROME_PATH=/usr/bin/chromium .cache/lh/node_modules/.bin/lighthouse "$1" --quiet \
    --chrome-flags="--headless=new --no-sandbox" --only-categories=performance,accessibility \
    --extra-headers="{\"Cookie\": \"$cookie\"}" --output=json --output-path="$dir/$2.json"
  python3 - "$dir/$2.json" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
a, c = r['audits'], r['categories']
score = lambda k: 'error' if c[k]['score'] is None else round(c[k]['score'] * 100)
print(f"{sys.argv[2]:12} performance {score('performance'):>3}  accessibility {score('accessibility'):>3}  "
      f"LCP {a['largest-contentful-paint'].get('displayValue', '-'):>6}  TBT {a['total-blocking-time'].get('displayValue', '-'):>7}  "
      f"CLS {a['cumulative-layout-shift'].get('displayValue', '-')}")
PY
}
run "$B/" home
run "$B/whats-on" whats-on
run "$B/whats-on/0001/1113" tickets
tok=$(csrf "$B/whats-on/0001/1113")
curl -fsS -o /dev/null -c "$jar" -b "$jar" -X POST --data-urlencode "_csrf=$tok" -d "qty-0001=2" "$B/whats-on/0001/1113"
run "$B/checkout/seats" seat-step
rm -f "$jar"
tok=$(csrf "$B/booking")
curl -fsS -o /dev/null -c "$jar" -b "$jar" -X POST --data-urlencode "_csrf=$tok" -d "cinema=0001&number=100004" --data-urlencode "email=paid4@example.com" "$B/booking"
run "$B/booking/current" booking
run "$B/bookings/0001/100004/seats" swap
