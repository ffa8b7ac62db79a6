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
	if len(args) > 0 && args[0] == "sandbox" {
		args = args[1:]
	}
	fs := flag.NewFlagSet("sandbox", flag.ContinueOnError)
	fs.SetOutput(stdout)
	addr := fs.String("addr", "127.0.0.1:9090", "listen address")
	token := fs.String("token", DefaultToken, "API token expected in the connectapitoken header")
	fixtures := fs.String("fixtures", "", "world fixture JSON file (default: the built-in world)")
	completion := fs.String("completion-delay", "1s", `how long the connector takes to complete a paid redirect order, or "never"`)
	payKey := fs.String("pay-key", payprovider.DefaultAPIKey, "payment provider secret key (stripe-go's API key: Authorization: Bearer)")
	webhookURL := fs.String("webhook-url", "", "absolute URL that receives the payment provider's signed Stripe events (default: none)")
	webhookSecret := fs.String("webhook-secret", payprovider.DefaultWebhookSecret, "secret that signs the Stripe events (Stripe-Signature)")
	publicURL := fs.String("public-url", "", "absolute URL where browsers reach this server (default http://<addr>)")
	verbose := fs.Bool("v", false, "log every request")
	staySession := fs.Bool("edits-stay-in-session", false, "refuse tickets of another session while editing a booking (a ticketing API without showtime changes)")
	var faults faultFlags
	fs.Var(&faults, "fault", "inject a fault, e.g. op=GetOrder,latency=500ms,status=503,result=13,ext=0,drop=true,times=2 (repeatable)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("sandbox flags: %w", err)
	}
	if u, err := url.Parse(*webhookURL); *webhookURL != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		return fmt.Errorf("sandbox flags: -webhook-url %q is not an absolute http(s) URL", *webhookURL)
	}
	delay, err := parseCompletionDelay(*completion)
	if err != nil {
		return err
	}
	if delay == 0 {
		delay = time.Nanosecond // Options treats 0 as "default"; the flag means "at once"
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stdout, &slog.HandlerOptions{Level: level}))

	now := time.Now()
	var world *World
	if *fixtures != "" {
		f, err := os.Open(*fixtures)
		if err != nil {
			return fmt.Errorf("open fixtures: %w", err)
		}
		world, err = LoadWorld(f, now)
		_ = f.Close()
		if err != nil {
			return fmt.Errorf("fixtures %s: %w", *fixtures, err)
		}
	} else {
		world = DefaultWorld(now)
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", *addr, err)
	}
	base := strings.TrimRight(*publicURL, "/")
	if base == "" {
		base = "http://" + ln.Addr().String()
	}
	provider := payprovider.New(payprovider.Options{PublicURL: base + "/pay", APIKey: *payKey,
		WebhookURL: *webhookURL, WebhookSecret: *webhookSecret, Logger: logger.With("component", "payprovider")})
	defer provider.Close()
	srv, err := New(Options{Token: *token, World: world, CompletionDelay: delay, Payments: provider, Logger: logger, EditsStayInSession: *staySession})
	if err != nil {
		_ = ln.Close()
		return err
	}
	defer srv.Close()
	for _, ft := range faults {
		if err := srv.Faults().Set(ft); err != nil {
			_ = ln.Close()
			return fmt.Errorf("fault flag: %w", err)
		}
	}

	mux := http.NewServeMux()
	mux.Handle("/pay/", http.StripPrefix("/pay", provider.Handler()))
	// The provider's API also at the root: stripe-go v85 refuses a backend
	// URL with a path, so its backend URL is this server's root.
	mux.Handle("/v1/", provider.Handler())
	mux.Handle("/", srv.Handler())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}

	fmt.Fprintf(stdout, "sandbox ticketing API: %s/  (header connectapitoken: %s)\n", base, *token)
	fmt.Fprintf(stdout, "payment provider:      %s/pay  (Stripe API subset: %s/pay/v1/..., also %s/v1/... for stripe-go; key %s)\n", base, base, base, *payKey)
	if *webhookURL != "" {
		fmt.Fprintf(stdout, "webhooks:              %s  (secret %s)\n", *webhookURL, *webhookSecret)
	}
	fmt.Fprintf(stdout, "admin:                 %s/sandbox-admin/faults, %s/sandbox-admin/stats\n\n", base, base)
	PrintBookings(stdout, world)

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
