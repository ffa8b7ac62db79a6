package main

import (
	"fmt"
	"io"
	"strings"
)

// settingDocs are the words docs/configuration.md gives each setting (configurationDoc): how
// its default reads and what it is. A setting without an entry is described by its help.
var settingDocs = map[string]settingDoc{
	"addr":                          {def: "`localhost:8080`", what: "listen address (`:8080` for every interface)"},
	"metrics-addr":                  {def: "*(none)*", what: "a separate listener serving only `GET /metrics` (Prometheus), e.g. `127.0.0.1:9090`: bind it where only the scraper reaches it"},
	"metrics-token":                 {def: "*(none)*", what: "opens `/metrics` on the site's own listener to `Authorization: Bearer <token>` (compared in constant time; 401 otherwise). Without it `/metrics` there answers 404. Never logged"},
	"public-url":                    {def: "`http://<addr>`", what: "how browsers reach the site; builds the payment ReturnUrl. `https://` turns on `Secure`/`__Host-` cookies and HSTS"},
	"upstream-url":                  {def: "*(embedded sandbox)*", what: "ticketing API base URL. Empty: start the sandbox in-process on a loopback port"},
	"upstream-token":                {def: "`sandbox-dev-token`", what: "the `connectapitoken` header value"},
	"payments-url":                  {def: "*(embedded sandbox)*", what: "the payment provider's API base: `https://api.stripe.com` live; empty: the embedded sandbox's Stripe subset"},
	"payments-key":                  {def: "`sk_test_sandbox`", what: "the payment provider's secret key: Stripe `sk_test_…` or `sk_live_…` (never logged; the start log says test or live)"},
	"payments-webhook-secret":       {def: "*(the embedded sandbox makes one)*", what: "Stripe's webhook signing secret `whsec_…` for `POST /payments/webhook`"},
	"payments-tender":               {def: "`CREDITCARD`", what: "`paymentTenderCategory` of edit payments and refunds taken by the provider ([docs/payments.md](payments.md))"},
	"payment-method":                {def: "`SANDBOXPAY`", what: "`PaymentMethod` sent when starting a redirect payment"},
	"database-url":                  {def: "`sqlite:data/cinema.db`", what: "`sqlite:PATH` or `postgres://user@host:5432/db`"},
	"session-store":                 {def: "the database's kind", what: "`sqlite`, `postgres` or `redis`"},
	"redis-url":                     {def: "`redis://127.0.0.1:6379/0`", what: "Redis for `session-store=redis`"},
	"cookie-keys":                   {def: "*(generated into data dir)*", what: "comma-separated secrets, 128 hex characters each, **newest first**; older ones are still accepted (rotation). Make one with `openssl rand -hex 64`"},
	"data-dir":                      {def: "`data`", what: "folder of the SQLite file and generated keys"},
	"smtp-url":                      {def: "*(none: `.eml` files)*", what: "customer e-mail relay: `smtp://user:pass@host:587` (STARTTLS required) or `smtps://user:pass@host:465`. Without it every message is written as an `.eml` file into `-mail-dir` and the start banner says so ([docs/mail.md](mail.md))"},
	"mail-from":                     {def: "`Cinema tickets <tickets@cinema.example>`", what: "From address of customer e-mail"},
	"mail-dir":                      {def: "`<data-dir>/mail`", what: "folder of the `.eml` files when no `-smtp-url` is set; with the embedded sandbox `/sandbox/mail` lists them, to a browser on this machine or signed-in staff"},
	"log-level":                     {def: "`info`", what: "`debug`, `info`, `warn`, `error`"},
	"log-format":                    {def: "`auto`", what: "`text`, `json`, or `auto` (text on a terminal)"},
	"trusted-proxies":               {def: "*(none)*", what: "CIDRs whose `X-Forwarded-For` is believed for the client IP"},
	"session-idle":                  {def: "`30m`", what: "a visit ends after this long without activity"},
	"session-lifetime":              {def: "`12h`", what: "and at the latest after this long"},
	"shutdown-timeout":              {def: "`15s`", what: "in-flight requests get this long on SIGINT/SIGTERM"},
	"site-name":                     {def: "`Lumière Cinemas`", what: "shown in the header"},
	"kiosk-idle":                    {def: "`60s`", what: "a kiosk starts over after this long without touch"},
	"listing-ttl":                   {def: "`30s`", what: "a cinema's listing (sessions with their free seats, films) is read from the ticketing system at most once per this long, by one request, and shared by every visitor and every day of What's on; once older it is served for as long again while it is read in the background. When the ticketing system does not answer, the last good listing is kept, and What's on says how old it is once older than 3 minutes (`internal/listings`). The listing is kept in each replica's memory: N replicas read it at most N times per interval"},
	"change-cutoff":                 {def: "`30m`", what: "customers may change, refund or swap until this long before the show; staff signed in at the counter until the show starts. The booking page says until when (in the cinema's time zone); later requests are refused"},
	"change-cutoff-cinema":          {def: "*(none)*", what: "per-cinema cut-offs overriding `-change-cutoff`, e.g. `0001=2h,0002=45m`"},
	"booking-status-map":            {def: "`0=kept,1=added,2=removed`", what: "the upstream's `bookingStatus` numbers (the contract does not publish them)"},
	"payment-status-map":            {def: "`P=pending,Y=paid,N=declined,C=cancelled,R=refunded`", what: "the upstream's `PaymentStatus` letters; a letter not listed is \"unknown\", never success"},
	"upstream-header":               {def: "*(none)*", what: "extra header on every ticketing call, `'Name: value'`; repeatable (the variable holds one per line). Values are never logged"},
	"upstream-idle-conns":           {def: "`64`", what: "idle keep-alive connections kept to the ticketing API for reuse; size it for the calls in flight in a burst (200 pages/s × 20 ms × up to 3 parallel reads ≈ 12); below 1 means the default"},
	"upstream-paths":                {def: "*(built-in table)*", what: "JSON file overriding operation paths, e.g. `{\"RemoveTickets\":\"POST RESTTicketing.svc/order/tickets/remove\"}` ([docs/wire-profile.md](wire-profile.md), \"Paths\")"},
	"collection-path":               {def: "*(none)*", what: "the ticketing API's route that marks a booking's tickets collected, `\"METHOD path\"`, e.g. `\"POST RESTBooking.svc/booking/collected\"` (the embedded sandbox's). The real API has no such operation: by default the site records collections itself (`ticket_collections`) and sends nothing upstream. A `MarkBookingCollected` row in `-upstream-paths` configures it too"},
	"names-file":                    {def: "*(none; the sandbox's with the embedded sandbox)*", what: "JSON catalog naming ticket types, area categories, areas, offers and ratings by the ticketing system's codes in each language; names without an entry are shown as sent ([docs/going-live.md](going-live.md), \"The cinema's names\")"},
	"time-zone":                     {def: "`Europe/Berlin`", what: "zone of a cinema whose `TimeZoneId` is absent or not understood"},
	"currency":                      {def: "`EUR`", what: "currency of a cinema that names none"},
	"tender-card":                   {def: "`CREDIT`", what: "`PaymentTenderCategory` of card payments taken by the payment provider"},
	"tender-giftcard":               {def: "`GIFTCARD`", what: "… of gift card payments"},
	"tender-loyalty":                {def: "`LOYALTY`", what: "… of loyalty points payments"},
	"tender-terminal":               {def: "`CREDIT`", what: "… of card payments at a counter or kiosk (the card reader, or a standalone terminal)"},
	"reader-location":               {def: "*(none)*", what: "the payment provider's location (Stripe Terminal `tml_…`) new card readers of counters and kiosks are registered at; without it one named after the site is made in `-reader-country` ([docs/going-live.md](going-live.md#card-readers-at-the-counters-and-kiosks))"},
	"reader-country":                {def: "`DE`", what: "country of the location made for card readers"},
	"tender-cash":                   {def: "`CASH`", what: "… of cash taken at the box office"},
	"refund-approval-above":         {def: "`50.00`", what: "a clerk's refund above this amount needs a supervisor's username and PIN (and a reason) before anything is refunded, on any device: counter, ordinary browser or kiosk. A supervisor's own refunds need none ([docs/box-office.md](box-office.md))"},
	"print-stream-type":             {def: "`HTML`", what: "`PrintStreamType` asked for when an order completes"},
	"booking-modes":                 {def: "`sale=0,reservation=1`", what: "the upstream's `BookingMode` numbers"},
	"attention-after":               {def: "`10m`", what: "an order whose redirect payment is still unconfirmed this long after it started is listed for staff under *Needs attention* (at least `1m`, at most `-order-watch-for`); the page says which value applies"},
	"order-watch-for":               {def: "`24h`", what: "an order whose redirect payment never completes is checked this long (every 2 s at first, backing off to every 10 minutes; across restarts), then given up: cancelled upstream (seats released) and listed for staff under *Needs attention*"},
	"failed-order-policy":           {def: "*\"If money was taken for this order, please contact the cinema's box office and quote your reference.\"*", what: "what a given-up order's page says about money taken for it, shown as written. Only the operator can promise a refund here; the site never does"},
	"max-seats-per-visit":           {def: "`10`", what: "seats one visit may hold at a time: the tickets being bought plus those added to a booking change. Checked before the ticketing system is asked; signed-in staff are exempt ([docs/checkout.md](checkout.md#seat-hoarding-limits))"},
	"max-orders-per-client":         {def: "`3`", what: "open purchase orders one client address may have at a time, counted in the database so all replicas agree; signed-in staff are exempt"},
	"hold-lifetime":                 {def: "`20m`", what: "the longest an open order whose end is never seen (a closed browser, a crash) counts against its client after it was last seen alive; its expiry upstream when that is sooner"},
	"admit-per-minute":              {def: "`0` *(no line)*", what: "new purchases let in per minute for the whole site. A visitor who chooses a showtime when the limit is reached waits on a queue page (place in line, estimated wait; it updates itself) and is taken on to the ticket step in turn, first come first served. With `-session-store=redis` the line is in Redis and shared by every replica (one place per visitor, the rate is the site's); otherwise it is in the process. Staff at the counter and kiosks are never queued ([docs/checkout.md](checkout.md))"},
	"admit-active":                  {def: "`0` *(no limit)*", what: "purchases that may be open at once; once reached, a visitor waits in line until a purchase ends (bought, cancelled, expired; at the latest after `-hold-lifetime`)"},
	"sales-open":                    {def: "*(none)*", what: "when showtimes' sales open, `SESSION=TIME` comma-separated, e.g. `1011=2026-12-24T10:00:00+01:00` (`CINEMA-SESSION=TIME` for one cinema's session). Before it the purchase shows a countdown; everyone who came before is put into line in random order at the opening, later visitors behind them in order of arrival. A bad entry stops the start with a message"},
	"staff-idle":                    {def: "`15m`", what: "a staff sign-in ends after this long without a request (the visit's `-session-idle` still applies)"},
	"argon2-memory":                 {def: "`64`", what: "MiB of memory per staff password or PIN hash (argon2id). Hashes made with other parameters, or bcrypt from earlier versions, are replaced at the next successful sign-in"},
	"argon2-time":                   {def: "`3`", what: "argon2id passes"},
	"argon2-threads":                {def: "`2`", what: "argon2id lanes"},
	"sandbox-completion-delay":      {def: "`1s`", what: "embedded sandbox: how long its connector takes to complete a paid order (negative: never)"},
	"sandbox-edits-stay-in-session": {def: "`false`", what: "embedded sandbox: refuse tickets of another session in an edit, like a deployment that does not let a booking move to another showtime (docs/going-live.md)"},
	"wallet-link-valid-for":         {def: "`168h`", what: "a booking's Add to Apple Wallet and Add to Google Wallet links work until this long after its show (at least `1h`); after that, and as soon as the booking is cancelled (no ticket left, or the ticketing system no longer has it), they answer a page saying so (410). A pass already in a wallet keeps updating; a cancelled booking's pass is voided"},
}

// settingDoc is how docs/configuration.md describes a setting.
type settingDoc struct {
	def  string // the default as it reads in the table (markdown)
	what string // what the setting is (markdown)
}

// configDocHeader opens docs/configuration.md.
const configDocHeader = `# Configuration

<!-- Generated from the flag definitions (cmd/web/config.go, config_doc.go) by
     go run ./cmd/web config-doc > docs/configuration.md
     TestConfigurationDocIsGenerated fails when this file and the flags differ. -->

Every setting is a flag and an environment variable (the flag wins). Durations use Go syntax
(` + "`30s`, `5m`" + `). ` + "`go run ./cmd/web -h`" + ` lists the flags with a short help.

| flag | environment | default | what it is |
|---|---|---|---|
`

// configurationDoc is docs/configuration.md: every setting with its environment variable, its
// default and what it is, in the order the flags are defined.
func configurationDoc() string {
	var b strings.Builder
	b.WriteString(configDocHeader)
	var c Config
	for _, s := range c.settings() {
		d, ok := settingDocs[s.name]
		if !ok {
			d = settingDoc{what: s.help}
		}
		if d.def == "" {
			d.def = "*(none)*"
			if s.def != "" {
				d.def = "`" + s.def + "`"
			}
		}
		fmt.Fprintf(&b, "| `-%s` | `%s` | %s | %s |\n", s.name, s.envVar(), d.def, d.what)
	}
	return b.String()
}

// runConfigDoc prints docs/configuration.md.
func runConfigDoc(stdout io.Writer) error {
	_, err := io.WriteString(stdout, configurationDoc())
	return err
}
