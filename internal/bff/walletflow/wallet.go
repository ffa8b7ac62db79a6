// Package walletflow serves a booking's passes for the phone's wallet: the Apple Wallet pass
// (.pkpass) and the Add to Google Wallet link. Both are reached by a link that carries a signed
// token of the booking (internal/wallet/walletlink), so a confirmation e-mail's links work on
// whatever phone reads the mail, without the visit that made the booking, and give that
// booking's passes and nothing else. What they show is the booking as it is now. They work
// until a while after the show (WalletDeps.LinkValidFor) and stop when the booking is
// cancelled; either way the page says so in words.
package walletflow

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/internal/wallet"
	"github.com/cinemabff/cinemabff/internal/wallet/walletlink"
)

// Passes makes a booking's passes from the booking as the ticketing system has it now.
type Passes interface {
	// ApplePass is the booking's signed .pkpass (its words in lang first) and when it last changed.
	ApplePass(ctx context.Context, cinemaID string, number int64, lang string) (pkpass []byte, modified time.Time, err error)
	// GoogleSaveURL is the booking's Add to Google Wallet link, in lang.
	GoogleSaveURL(ctx context.Context, cinemaID string, number int64, lang string) (string, error)
}

// Site is what the flow needs from the kernel and the visit.
type Site interface {
	// FromUpstream turns an error of the ticketing system into an error page in words.
	FromUpstream(err error, backURL, backLabel string) error
}

// Handler serves the wallet links.
type Handler struct {
	Site   Site
	Links  *walletlink.Signer
	Passes Passes
	Home   string // where a person goes back to from an error page
}

// Routes mounts the flow.
func (h *Handler) Routes(r web.Router) {
	r.GET("/wallet/:token/booking.pkpass", h.applePass, "wallet.apple")
	r.GET("/wallet/:token/google", h.googleLink, "wallet.google")
}

// URLs are a booking's wallet links built by url (the kernel's URL for the booking page, AbsURL
// for the e-mails); "", "" when the booking cannot carry a token.
func URLs(url func(name string, params ...any) string, links *walletlink.Signer, cinemaID string, number int64) (apple, google string) {
	if links == nil {
		return "", ""
	}
	tok, err := links.Token(cinemaID, number)
	if err != nil {
		return "", ""
	}
	return url("wallet.apple", tok), url("wallet.google", tok)
}

// errLinkNotValid is the page of a wallet link that this site did not make (mistyped, cut off
// by a mail program, or made up): it says so, and never whether such a booking exists.
var errLinkNotValid = &web.Error{Code: web.ENotFound, HeadingID: web.Msg("wallet.link_not_valid.heading"),
	MessageID: web.Msg("wallet.link_not_valid.message")}

func (h *Handler) booking(c echo.Context) (cinemaID string, number int64, err error) {
	if h.Links == nil {
		err = errors.New("wallet: no wallet passes are set up")
	} else {
		cinemaID, number, err = h.Links.Parse(c.Param("token"))
	}
	if err != nil {
		e := *errLinkNotValid
		e.Err, e.BackURL = err, h.Home
		return "", 0, &e
	}
	return cinemaID, number, nil
}

// applePass answers the booking's .pkpass, which Safari hands to Wallet.
func (h *Handler) applePass(c echo.Context) error {
	cinemaID, number, err := h.booking(c)
	if err != nil {
		return err
	}
	pkpass, modified, err := h.Passes.ApplePass(c.Request().Context(), cinemaID, number, web.Loc(c).Lang())
	if err != nil {
		return h.passError(c, number, err)
	}
	hd := c.Response().Header()
	hd.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="booking-%d.pkpass"`, number))
	hd.Set("Cache-Control", "no-store") // the pass follows the booking: never an old copy
	if !modified.IsZero() {
		hd.Set("Last-Modified", modified.UTC().Format(http.TimeFormat))
	}
	return c.Blob(http.StatusOK, "application/vnd.apple.pkpass", pkpass)
}

// googleLink sends the phone on to Google's page that adds the booking's tickets.
func (h *Handler) googleLink(c echo.Context) error {
	cinemaID, number, err := h.booking(c)
	if err != nil {
		return err
	}
	to, err := h.Passes.GoogleSaveURL(c.Request().Context(), cinemaID, number, web.Loc(c).Lang())
	if err != nil {
		return h.passError(c, number, err)
	}
	return c.Redirect(http.StatusSeeOther, to)
}

// passError says in words why a link gives no pass: the booking was cancelled or the ticketing
// system no longer has it (the link is withdrawn), the link's time is over, or what the
// ticketing system said.
func (h *Handler) passError(c echo.Context, number int64, err error) error {
	l := web.Loc(c)
	gone := func(heading, message string, args ...any) error {
		return &web.Error{Code: web.EGone, Err: err, BackURL: h.Home, BackLabel: l.T("wallet.back"),
			Heading: l.T(heading), Message: l.T(message, append([]any{"Number", number}, args...)...)}
	}
	var expired *wallet.LinkExpiredError
	switch {
	case errors.Is(err, wallet.ErrNoTickets):
		return gone("wallet.cancelled.heading", "wallet.cancelled.message")
	case errors.Is(err, upstream.ErrNotFound):
		return gone("wallet.unknown.heading", "wallet.unknown.message")
	case errors.As(err, &expired):
		return gone("wallet.expired.heading", "wallet.expired.message", "Until", l.Time(expired.Until, expired.Zone, i18n.DateTimeLong))
	}
	return h.Site.FromUpstream(err, h.Home, l.T("wallet.back"))
}
