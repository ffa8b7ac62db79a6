package bff

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/walletflow"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/ratelimit"
	"github.com/cinemabff/cinemabff/internal/storage"
	"github.com/cinemabff/cinemabff/internal/wallet"
	"github.com/cinemabff/cinemabff/internal/wallet/apns"
	"github.com/cinemabff/cinemabff/internal/wallet/applepass"
	"github.com/cinemabff/cinemabff/internal/wallet/googlepass"
	"github.com/cinemabff/cinemabff/internal/wallet/passes"
	"github.com/cinemabff/cinemabff/internal/wallet/walletlink"
	"github.com/cinemabff/cinemabff/internal/wallet/webservice"
)

// WalletDeps configure the passes for the phone's wallet. Without a LinkKey the site offers
// no wallet links (the routes answer that the link does not work).
type WalletDeps struct {
	// LinkKey signs the tokens of the wallet links (at least 16 bytes; replicas share it).
	LinkKey []byte
	// LinkValidFor is how long after its show a booking's wallet links work (0: a week,
	// wallet.DefaultLinkValidFor); a cancelled booking's stop at once.
	LinkValidFor time.Duration
	// Organization is the operator's name on a pass; "" means the site's name.
	Organization string
	// Locations is where each cinema is: a pass shows on the lock screen near it.
	Locations map[string]applepass.Location
	Apple     applepass.Identity
	Google    googlepass.Issuer
	GoogleKey googlepass.ServiceAccount
	// TokenKey makes each Apple pass's authenticationToken (at least 32 bytes; replicas share
	// it). With a database, passes carry the PassKit web service's address and follow changes.
	TokenKey []byte
	// Pusher tells a phone that a pass changed (APNs); nil: the change is only logged, and
	// phones see it when Wallet next asks.
	Pusher passes.Pusher
	// GoogleAPI patches the Google Wallet objects handed out after their booking changes (the
	// Google Wallet API); nil: saved objects keep what they were saved with.
	GoogleAPI wallet.ObjectPatcher
}

// walletColors are the operator's colours on a pass: the site's indigo, white type.
var walletColors = applepass.Colors{
	Foreground: applepass.RGB{R: 255, G: 255, B: 255},
	Background: applepass.RGB{R: 55, G: 48, B: 163},
	Label:      applepass.RGB{R: 224, G: 231, B: 255},
}

// newWalletFlow builds the wallet flow and the booking page's wallet links.
func (s *Server) newWalletFlow(d WalletDeps, db *storage.DB) (*walletflow.Handler, func(cinemaID string, number int64) (string, string), error) {
	h := &walletflow.Handler{Site: s.Visits}
	s.afterRoutes(func() { h.Home = s.Kernel.URL("home") })
	if d.Apple.Certificate != nil {
		s.walletCertEnds = d.Apple.NotAfter()
	}
	if d.LinkKey == nil || s.Mail == nil || s.Mail.Signer == nil {
		return h, nil, nil // no ticket codes, no passes: the tickets' codes are what a pass carries
	}
	links, err := walletlink.NewSigner(d.LinkKey)
	if err != nil {
		return nil, nil, fmt.Errorf("bff: wallet links: %w", err)
	}
	org := d.Organization
	if org == "" {
		org = s.Kernel.Cfg.SiteName
	}
	h.Links = links
	s.bookingFlow.WalletLinkValidFor = cmp.Or(d.LinkValidFor, wallet.DefaultLinkValidFor)
	s.walletMailLinks = func(cinemaID string, number int64) (string, string) {
		return walletflow.URLs(s.Kernel.AbsURL, links, cinemaID, number)
	}
	svc := &wallet.Service{Bookings: s.Visits, Cinemas: s.Visits, Codes: s.Mail.Signer, Organization: org, Langs: s.Kernel.Langs,
		Colors: walletColors, Locations: d.Locations, Apple: d.Apple, Google: d.Google, GoogleKey: d.GoogleKey, Now: s.Kernel.Now,
		LinkValidFor: d.LinkValidFor}
	h.Passes = svc
	if db != nil && len(d.TokenKey) > 0 {
		store, err := passes.NewStore(db.SQL, d.TokenKey)
		if err != nil {
			return nil, nil, fmt.Errorf("bff: wallet passes: %w", err)
		}
		svc.Passes = store
		s.afterRoutes(func() { svc.WebServiceURL = strings.TrimSuffix(s.Kernel.AbsURL("wallet.service"), "/*") })
		s.walletService = webservice.New(store, svc, s.Kernel.Logger)
		svc.Notifier = &passes.Notifier{Store: store, Pusher: d.Pusher, Logger: s.Kernel.Logger, Now: s.Kernel.Now}
		if svc.Notifier.Pusher == nil {
			svc.Notifier.Pusher = logPusher{s.Kernel.Logger}
		}
		svc.GoogleAPI = d.GoogleAPI
		bg, log := s.Kernel.Background, s.Kernel.Logger
		s.Mail.BookingChanged = func(cinemaID string, number int64) {
			ctx, cancel := context.WithTimeout(bg, 2*time.Minute)
			defer cancel()
			// A phone also asks again when the pass is opened; a Google object keeps its old
			// seat until the next change patches it.
			if err := svc.Changed(ctx, cinemaID, number); err != nil {
				log.Error("wallet passes not all updated after a change", "cinema", cinemaID, "booking", number, "err", err)
			}
		}
	}
	return h, func(cinemaID string, number int64) (string, string) {
		return walletflow.URLs(s.Kernel.URL, links, cinemaID, number)
	}, nil
}

// serveWalletService hands Apple's PassKit web service the request, without the route's prefix
// (its routes are written without it); 404 where passes are not set up. A device's log post
// is taken only within the log's limits.
func (s *Server) serveWalletService(c echo.Context) error {
	if s.walletService == nil {
		return echo.ErrNotFound
	}
	prefix := strings.TrimSuffix(s.Kernel.Path("wallet.service"), "/*")
	r := c.Request()
	if r.Method == http.MethodPost && strings.TrimPrefix(r.URL.Path, prefix) == webservice.RouteLog {
		if ok, err := s.passLogAllowed(c); !ok {
			return err
		}
	}
	http.StripPrefix(prefix, s.walletService).ServeHTTP(c.Response(), r)
	return nil
}

// Wallet posts its logs about our passes without any token, so anybody can post there. Each
// client may post a few, and the site as a whole takes a bounded number, counted in the limit
// store every replica shares: the log cannot be flooded from one address nor from many.
var (
	passLogPerClient = ratelimit.Rule{Burst: 5, Every: time.Minute}
	passLogSite      = ratelimit.Rule{Burst: 20, Every: 5 * time.Second}
)

// passLogAllowed takes one log post from the client's and the site's allowances; past either
// it has answered 429 with Retry-After (nothing logged: a flood must not write a line per
// refusal either).
func (s *Server) passLogAllowed(c echo.Context) (bool, error) {
	ok, wait, err := ratelimit.TakeAll(c.Request().Context(), s.Kernel.Limits,
		ratelimit.Limit{Key: "passkit-log:client:" + web.ClientKey(c), Rule: passLogPerClient},
		ratelimit.Limit{Key: "passkit-log:site", Rule: passLogSite})
	if err != nil {
		return false, fmt.Errorf("passkit log limit: %w", err)
	}
	if !ok {
		c.Response().Header().Set("Retry-After", strconv.Itoa(words.WholeSeconds(wait.Seconds())))
		return false, c.String(http.StatusTooManyRequests, "too many log posts; try again later")
	}
	return true, nil
}

// logPusher stands in for APNs where none is set up: the push a phone would get is logged.
type logPusher struct{ log *slog.Logger }

func (p logPusher) Push(_ context.Context, deviceToken string) error {
	p.log.Info("wallet pass changed; no APNs set up, so the phone hears of it when Wallet next asks", "device_token", apns.ShortToken(deviceToken))
	return nil
}
