package sandbox

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
)

type faultFlags []Fault

func (f *faultFlags) String() string { return fmt.Sprint(len(*f), " fault(s)") }

func (f *faultFlags) Set(v string) error {
	ft, err := ParseFault(v)
	if err != nil {
		return err
	}
	*f = append(*f, ft)
	return nil
}

// Main runs the standalone sandbox: the ticketing API at the root and the
// payment provider under /pay (its Stripe API also at /v1/ of the root, for
// stripe-go). args are the arguments after the "sandbox"
// subcommand (a leading "sandbox" is skipped). It prints the addresses and
// the ready-made bookings, and stops when ctx is cancelled.
func Main(ctx context.Context, args []string, stdout io.Writer) error {
	f, err := parseMainFlags(args, stdout)
	if err != nil {
		return err
	}
	delay, err := f.completionDelay()
	if err != nil {
		return err
	}
	logger := f.logger(stdout)
	world, err := f.world(time.Now())
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", f.addr, err)
	}
	base := strings.TrimRight(f.publicURL, "/")
	if base == "" {
		base = "http://" + ln.Addr().String()
	}
	provider := payprovider.New(payprovider.Options{PublicURL: base + "/pay", APIKey: f.payKey,
		WebhookURL: f.webhookURL, WebhookSecret: f.webhookSecret, Logger: logger.With("component", "payprovider")})
	defer provider.Close()
	srv, err := New(Options{Token: f.token, World: world, CompletionDelay: delay, Payments: provider, Logger: logger, EditsStayInSession: f.staySession})
	if err != nil {
		_ = ln.Close()
		return err
	}
	defer srv.Close()
	for _, ft := range f.faults {
		if err := srv.Faults().Set(ft); err != nil {
			_ = ln.Close()
			return fmt.Errorf("fault flag: %w", err)
		}
	}
	f.printAddresses(stdout, base)
	PrintBookings(stdout, world)
	return serveUntilDone(ctx, sandboxMux(provider, srv), ln)
}

// mainFlags are the command line of the standalone sandbox.
type mainFlags struct {
	addr, token, fixtures, completion            string
	payKey, webhookURL, webhookSecret, publicURL string
	verbose, staySession                         bool
	faults                                       faultFlags
}

// parseMainFlags reads the command line (a leading "sandbox" skipped); a webhook URL must be
// an absolute http(s) URL.
func parseMainFlags(args []string, stdout io.Writer) (*mainFlags, error) {
	if len(args) > 0 && args[0] == "sandbox" {
		args = args[1:]
	}
	var f mainFlags
	fs := flag.NewFlagSet("sandbox", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.StringVar(&f.addr, "addr", "127.0.0.1:9090", "listen address")
	fs.StringVar(&f.token, "token", DefaultToken, "API token expected in the connectapitoken header")
	fs.StringVar(&f.fixtures, "fixtures", "", "world fixture JSON file (default: the built-in world)")
	fs.StringVar(&f.completion, "completion-delay", "1s", `how long the connector takes to complete a paid redirect order, or "never"`)
	fs.StringVar(&f.payKey, "pay-key", payprovider.DefaultAPIKey, "payment provider secret key (stripe-go's API key: Authorization: Bearer)")
	fs.StringVar(&f.webhookURL, "webhook-url", "", "absolute URL that receives the payment provider's signed Stripe events (default: none)")
	fs.StringVar(&f.webhookSecret, "webhook-secret", payprovider.DefaultWebhookSecret, "secret that signs the Stripe events (Stripe-Signature)")
	fs.StringVar(&f.publicURL, "public-url", "", "absolute URL where browsers reach this server (default http://<addr>)")
	fs.BoolVar(&f.verbose, "v", false, "log every request")
	fs.BoolVar(&f.staySession, "edits-stay-in-session", false, "refuse tickets of another session while editing a booking (a ticketing API without showtime changes)")
	fs.Var(&f.faults, "fault", "inject a fault, e.g. op=GetOrder,latency=500ms,status=503,result=13,ext=0,drop=true,times=2 (repeatable)")
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("sandbox flags: %w", err)
	}
	if u, err := url.Parse(f.webhookURL); f.webhookURL != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		return nil, fmt.Errorf("sandbox flags: -webhook-url %q is not an absolute http(s) URL", f.webhookURL)
	}
	return &f, nil
}

// completionDelay is how long the connector takes to complete a paid order (0: at once).
func (f *mainFlags) completionDelay() (time.Duration, error) {
	delay, err := parseCompletionDelay(f.completion)
	if err != nil {
		return 0, err
	}
	if delay == 0 {
		delay = time.Nanosecond // Options treats 0 as "default"; the flag means "at once"
	}
	return delay, nil
}

// logger logs to stdout, every request with -v.
func (f *mainFlags) logger(stdout io.Writer) *slog.Logger {
	level := slog.LevelInfo
	if f.verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(stdout, &slog.HandlerOptions{Level: level}))
}

// world is the world of -fixtures, or the built-in one.
func (f *mainFlags) world(now time.Time) (*World, error) {
	if f.fixtures == "" {
		return DefaultWorld(now), nil
	}
	file, err := os.Open(f.fixtures)
	if err != nil {
		return nil, fmt.Errorf("open fixtures: %w", err)
	}
	world, err := LoadWorld(file, now)
	_ = file.Close()
	if err != nil {
		return nil, fmt.Errorf("fixtures %s: %w", f.fixtures, err)
	}
	return world, nil
}

// printAddresses tells where the ticketing API, the payment provider and the admin pages are.
func (f *mainFlags) printAddresses(stdout io.Writer, base string) {
	fmt.Fprintf(stdout, "sandbox ticketing API: %s/  (header connectapitoken: %s)\n", base, f.token)
	fmt.Fprintf(stdout, "payment provider:      %s/pay  (Stripe API subset: %s/pay/v1/..., also %s/v1/... for stripe-go; key %s)\n", base, base, base, f.payKey)
	if f.webhookURL != "" {
		fmt.Fprintf(stdout, "webhooks:              %s  (secret %s)\n", f.webhookURL, f.webhookSecret)
	}
	fmt.Fprintf(stdout, "admin:                 %s/sandbox-admin/faults, %s/sandbox-admin/stats\n\n", base, base)
}

// sandboxMux serves the payment provider under /pay and the ticketing API at the root.
func sandboxMux(provider *payprovider.Provider, srv *Server) *http.Server {
	mux := http.NewServeMux()
	mux.Handle("/pay/", http.StripPrefix("/pay", provider.Handler()))
	// The provider's API also at the root: stripe-go v85 refuses a backend
	// URL with a path, so its backend URL is this server's root.
	mux.Handle("/v1/", provider.Handler())
	mux.Handle("/", srv.Handler())
	return &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
}

// serveUntilDone serves on ln until ctx is cancelled, then shuts down within 5 seconds.
func serveUntilDone(ctx context.Context, hs *http.Server, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- Serve(hs, ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// PrintBookings writes the ready-made bookings of a world as a table.
func PrintBookings(w io.Writer, world *World) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CINEMA\tNUMBER\tBOOKING ID\tE-MAIL\tSESSION\tCASE")
	type row struct {
		cinema string
		b      Booking
	}
	var rows []row
	for _, c := range world.Cinemas {
		for _, b := range c.Bookings {
			rows = append(rows, row{c.ID, b})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].b.Number < rows[j].b.Number })
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%s\n", r.cinema, r.b.Number, r.b.ID, r.b.CustomerEmail, r.b.SessionID, r.b.Case)
	}
	_ = tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintln(w, "gift cards:")
	for _, g := range world.GiftCards {
		fmt.Fprintf(w, "  %s  PIN %s  %s\n", g.Number, g.Pin, money(g.BalanceInCents, g.Currency))
	}
	fmt.Fprintln(w, "loyalty members:")
	for _, m := range world.LoyaltyMembers {
		fmt.Fprintf(w, "  %s  PIN %s  %s  %d points\n", m.CardNumber, m.Pin, m.Name, m.PointsBalance)
	}
}
