# The README's two commands are `go run ./cmd/web` and `make test`.
SHELL := /bin/bash
FUZZTIME ?= 30s

.PHONY: run test test-race test-race-all test-fast generate fuzz fuzz-long bench bench-wrk lighthouse money check-prereqs deps

run:
	go run ./cmd/web

generate:
	go tool templ generate

# test runs every test once, without the race detector: it made the suite eight times as
# costly in CPU (internal/bff/checkout: 7.7 s of CPU without, 63 s with) on a 2-core machine.
# Three packages' tests run at once, and four parallel tests of a package (the default is one
# per core, two): much of the time is spent waiting (on Chromium, on a kiosk's idle timer, on a
# slow upstream played out in real time), not computing. Then the tests that measure time on
# screen (QUIET_TESTS) run alone, as a machine busy with the rest would measure itself; then
# the packages whose subject is concurrency and that need no database (RACE_PKGS) run again
# under the race detector.
# PostgreSQL, Redis and Chromium are used for real; without them the tests that need them skip
# loudly (and fail when CI is set).
QUIET_TESTS := ^(TestBrowserSeatMapAnswersFastOnASlowPhone|TestBrowserKioskSpeechAnswersEveryKeyFast)$$
RACE_PKGS := ./internal/flight/ ./internal/upstream/ ./internal/etag/
test: check-prereqs
	go test -count=1 -timeout 20m -p 3 -parallel 4 -skip '$(QUIET_TESTS)' ./...
	go test -count=1 -timeout 5m -run '$(QUIET_TESTS)' ./internal/bff/browser/
	$(MAKE) --no-print-directory test-race

# test-race runs the packages whose subject is concurrency and that build without the embedded
# database under the race detector: the single flights, the upstream client's breaker, limits
# and retries, the shared ETags. test-race-all runs every test under it (before a release): the
# embedded SQLite (modernc.org/sqlite, C translated to Go) is costly to build and run with it.
test-race:
	go test -race -count=1 -timeout 10m $(RACE_PKGS)

test-race-all:
	go test -race -count=1 -timeout 30m -p 3 ./...

# test-fast runs every package's tests but the browser tests (no Chromium needed).
test-fast:
	go test -count=1 -timeout 20m -p 3 $$(go list ./... | grep -v /internal/bff/browser)

# deps lists the direct dependencies behind their latest release and fails for any without a
# reason written in docs/dependencies.md (it asks the Go module proxy).
deps:
	go run ./tools/depcheck -doc docs/dependencies.md

check-prereqs:
	@command -v go >/dev/null || { echo "Go 1.26+ is required"; exit 1; }
	@test -x /usr/bin/chromium-headless-shell || test -x /usr/bin/chromium || echo "NOTE: Chromium missing: browser tests will skip (apt-get install -y chromium-headless-shell)"
	@(exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null || echo "NOTE: PostgreSQL not on 127.0.0.1:5432: its tests will skip"
	@(exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null || echo "NOTE: Redis not on 127.0.0.1:6379: its tests will skip"
	@(exec 3<>/dev/tcp/127.0.0.1/12111) 2>/dev/null || echo "NOTE: stripe-mock not on 127.0.0.1:12111: the payment adapter's Stripe-mock test will skip (.ci/run installs and starts it)"

# fuzz runs every fuzz target for FUZZTIME each (go test allows one target per run). The targets
# are found in the sources: listing them with go test -list would build every package's tests.
fuzz:
	@for f in $$(git ls-files '*_test.go' | xargs grep -l '^func Fuzz'); do \
	  for t in $$(grep -o '^func Fuzz[A-Za-z0-9_]*' $$f | cut -c6-); do \
	    echo "fuzz ./$$(dirname $$f) $$t"; \
	    go test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) ./$$(dirname $$f) || exit 1; \
	  done; \
	done

# fuzz-long is the longer run of the same targets (seeded with every golden body of the
# real wire), e.g. before a release: make fuzz-long (5 minutes each).
fuzz-long:
	$(MAKE) fuzz FUZZTIME=5m

# bench reproduces BENCHMARKS.md: the Go benchmarks of the BFF's hot paths (BenchmarkPages puts
# Echo's hello handler and our pages side by side in one run), then the load tool against the
# sandbox with 20 ms upstream latency, 2,000 return page visitors and a 10 s upstream, and the
# confirmation delay (about 7 minutes in all). `money` is not part of it: it is a correctness
# check that takes long; run it on its own.
BENCH_PKGS ?= ./internal/bff/ ./internal/bff/web/ ./internal/upstream/ ./internal/tickets/ ./views/components/
BENCH_DURATION ?= 20s
BENCH_VISITORS ?= 2000
bench:
	go test -run '^$$' -bench . -benchmem $(BENCH_PKGS)
	@# A page that errs (e.g. times out when overloaded) makes the tool exit 1 after its report; the
	@# remaining figures are still taken (the leading '-').
	-go run ./cmd/loadtest -rate 200 -duration $(BENCH_DURATION) -latency 20ms -visitors $(BENCH_VISITORS) -slow 10s
	set -o pipefail; CHECKOUT_BENCH=20 go test -count=1 -run '^TestBenchConfirmationDelay$$' -v ./internal/bff/checkout/ | grep -E 'purchases|^(ok|FAIL|---)'

# lighthouse scores the customer's phone pages with Lighthouse 12's mobile defaults (needs
# Node.js, npm and /usr/bin/chromium; installs Lighthouse into the git-ignored .cache/lh).
lighthouse:
	bash .ci/lighthouse.sh

# money breaks the world at random points of 1,000 edit payments and checks every one ends
# applied once or refunded in full; it reports the count. (CI runs 24 of them in make test.)
# bench-wrk: What's on against the home page in one run, served from the embedded sandbox (the
# service on its defaults in a fresh data directory), with wrk (apt-get install -y wrk).
WRK_ADDR ?= 127.0.0.1:18499
bench-wrk:
	@command -v wrk >/dev/null || { echo "wrk is required: apt-get install -y wrk"; exit 1; }
	go build -o /tmp/cinema-bench-wrk ./cmd/web
	@dir=$$(mktemp -d); /tmp/cinema-bench-wrk -data-dir $$dir -addr $(WRK_ADDR) >$$dir/web.log 2>&1 & pid=$$!; \
	trap 'kill $$pid; rm -rf $$dir' EXIT; sleep 3; \
	curl -fsS -o /dev/null http://$(WRK_ADDR)/whats-on || exit 1; \
	for round in 1 2; do for path in / /whats-on; do \
	  echo "== $$path (round $$round)"; \
	  wrk -t2 -c8 -d10s -H 'Accept-Encoding: gzip' http://$(WRK_ADDR)$$path | grep -E 'Requests/sec|Non-2xx|Latency'; \
	done; done

money:
	MONEY_RUNS=$${MONEY_RUNS:-1000} go test -count=1 -timeout 30m -run '^TestMoneyIsNeverLost$$' -v ./internal/bff/booking/ | grep -E 'randomised runs|^(ok|FAIL|---)'

