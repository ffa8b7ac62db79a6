package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/feequotes"
	"github.com/cinemabff/cinemabff/internal/sandbox"
	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
	"github.com/cinemabff/cinemabff/internal/sandbox/walletstandin"
	"github.com/cinemabff/cinemabff/internal/storage"
)

// sandboxPayPrefix is where the embedded sandbox's payment pages are served on the site's own
// listener when the stand-in takes the site's payments, to a browser on the machine the site
// runs on only (bff.LoopbackOnly): they pay without any key.
const sandboxPayPrefix = "/sandbox/pay"

func runSandbox(ctx context.Context, args []string, stdout io.Writer) error {
	return sandbox.Main(ctx, args, stdout)
}

type embeddedSandbox struct {
	// browserHandler is the stand-in provider's pages and API for the site's listener; nil
	// when a real provider (-payments-url) takes the site's payments: the stand-in is then
	// not the site's, and its pages are only on its own loopback port.
	browserHandler http.Handler
	// walletPage shows the pushes and Google Wallet API calls the stand-ins recorded (nil
	// where the sandbox does not stand in for them).
	walletPage http.Handler
	// fees are the sandbox's booking fees per ticket, for the site to know before its first
	// order (learnSandboxFees).
	fees  map[string]sandbox.FeeQuote
	close func()
}

// learnSandboxFees tells the site's stored fee quotes the embedded sandbox's booking fees, as
// a first order at each cinema would: the first visitor's ticket step then shows the total
// with the fees, the total the seat step and the review show.
func learnSandboxFees(ctx context.Context, db *storage.DB, fees map[string]sandbox.FeeQuote, logger *slog.Logger) {
	if db == nil || len(fees) == 0 {
		return
	}
	quotes := feequotes.New(db.SQL, feequotes.Options{Logger: logger})
	for id, f := range fees {
		quotes.Learn(ctx, id, cinema.NewMoney(f.Cents, f.Currency))
	}
}

// sandboxCinemaLocations place the sandbox's cinemas (Berlin and London) for their passes.
const sandboxCinemaLocations = "0001=52.5219:13.4132,0002=51.5136:-0.1365"

// sandboxWalletPath is where the site shows what the wallet stand-ins recorded.
const sandboxWalletPath = "/sandbox/wallet"

func (e *embeddedSandbox) Close() { e.close() }

// startEmbeddedPayments serves only the sandbox payment provider on a loopback port, for a
// service pointed at a real ticketing API without a payment provider of its own (a test
// deployment): edits that move money then go through the stand-in provider, and the log says
// so. A live deployment sets -payments-url.
func startEmbeddedPayments(cfg *Config, logger *slog.Logger) (*embeddedSandbox, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("embedded payment provider listen: %w", err)
	}
	// The bookings of the other ticketing API were paid elsewhere: refunds against their
	// payments are adopted, so an edit with a refund can be tried end to end.
	provider := payprovider.New(providerOptions(cfg, cfg.PublicURL+sandboxPayPrefix, logger, true))
	srv := &http.Server{Handler: http.StripPrefix("/pay", provider.Handler()), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			logger.Error("embedded payment provider stopped", "err", err)
		}
	}()
	cfg.PaymentsURL = "http://" + ln.Addr().String() + "/pay"
	logger.Warn("no -payments-url: edit payments and refunds go through the embedded sandbox payment provider; set -payments-url for real money",
		"payments_url", cfg.PaymentsURL)
	return &embeddedSandbox{
		browserHandler: provider.Handler(),
		close: func() {
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_ = srv.Shutdown(sctx)
			provider.Close()
		},
	}, nil
}

// providerOptions configures the stand-in Stripe: the site's own key, its pages at publicURL,
// and its webhook events signed with a secret made for this run and sent to the site's own
// webhook route.
func providerOptions(cfg *Config, publicURL string, logger *slog.Logger, adopt bool) payprovider.Options {
	o := payprovider.Options{PublicURL: publicURL, APIKey: cfg.PaymentsKey,
		AdoptUnknownPayments: adopt, Logger: logger.With("component", "sandbox-stripe")}
	if cfg.PaymentsURL != "" {
		// A real provider takes the site's payments; this one serves only the sandbox's own
		// connector and sends no events to the site.
		return o
	}
	if cfg.PaymentsWebhook == "" {
		cfg.PaymentsWebhook = "whsec_" + randomHex(24)
	}
	o.WebhookURL, o.WebhookSecret = cfg.PublicURL+"/payments/webhook", cfg.PaymentsWebhook
	return o
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// startEmbeddedSandbox serves the sandbox ticketing API and payment provider API on a loopback
// port of this process and points the configuration at it.
func startEmbeddedSandbox(ctx context.Context, cfg *Config, logger *slog.Logger, stdout io.Writer) (*embeddedSandbox, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("embedded sandbox listen: %w", err)
	}
	base := "http://" + ln.Addr().String()
	// The stand-in's pages are the site's only when it takes the site's payments; with a real
	// provider, the sandbox's own purchases pay on its loopback port.
	standIn := cfg.PaymentsURL == ""
	payPages := base + "/pay"
	if standIn {
		payPages = cfg.PublicURL + sandboxPayPrefix
	}
	provider := payprovider.New(providerOptions(cfg, payPages, logger, false))
	world := sandbox.DefaultWorld(time.Now())
	sb, err := sandbox.New(sandbox.Options{
		World:              world,
		Token:              cfg.UpstreamToken,
		CompletionDelay:    cfg.SandboxDelay,
		EditsStayInSession: cfg.SandboxStay,
		Payments:           provider,
		Logger:             logger.With("component", "sandbox"),
	})
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("embedded sandbox: %w", err)
	}
	wallet, err := walletstandin.Start()
	if err != nil {
		ln.Close()
		sb.Close()
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/pay/", http.StripPrefix("/pay", provider.Handler()))
	mux.Handle(walletstandin.GooglePath, http.StripPrefix(strings.TrimSuffix(walletstandin.GooglePath, "/"), wallet.Google))
	mux.Handle("/", sb.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := sandbox.Serve(srv, ln); err != nil && err != http.ErrServerClosed {
			logger.Error("embedded sandbox stopped", "err", err)
		}
	}()
	cfg.UpstreamURL = base
	if cfg.PaymentsURL == "" {
		cfg.PaymentsURL = base + "/pay"
	}
	// Wallet updates go to the stand-ins unless the operator named real services.
	if cfg.GoogleWalletAPI == "" {
		cfg.GoogleWalletAPI = base + walletstandin.GooglePath
		if cfg.GoogleWalletTokenURL == "" {
			cfg.GoogleWalletTokenURL = base + walletstandin.GooglePath + "token"
		}
	}
	cfg.sandboxAPNs = wallet.APNsURL
	if cfg.WalletLocations == "" {
		cfg.WalletLocations = sandboxCinemaLocations
	}
	logger.Info("embedded sandbox started", "upstream_url", base, "payments_url", cfg.PaymentsURL, "edits_stay_in_session", cfg.SandboxStay)
	fmt.Fprintln(stdout, "Embedded sandbox: ready-made bookings to try (find them under \"My booking\"):")
	sandbox.PrintBookings(stdout, world)
	out := &embeddedSandbox{
		fees: world.FeesPerTicket(time.Now()),
		close: func() {
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_ = srv.Shutdown(sctx)
			sb.Close()
			provider.Close()
			wallet.Close()
		},
	}
	if standIn {
		out.browserHandler, out.walletPage = provider.Handler(), wallet.Page()
		fmt.Fprintf(stdout, "Wallet updates (APNs pushes, Google Wallet API calls) go to stand-ins; see %s%s (in a browser on this machine)\n",
			strings.TrimSuffix(cfg.PublicURL, "/"), sandboxWalletPath)
	}
	return out, nil
}
