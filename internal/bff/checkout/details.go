package checkout

import (
	"net/http"
	"net/mail"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/keypad"
	"github.com/cinemabff/cinemabff/views/pages/checkoutview"
)

// showBuyDetails asks for the name and e-mail address.
func (h *Handler) showBuyDetails(c echo.Context) error {
	v, err := h.requireBuy(c)
	if err != nil {
		return err
	}
	return h.renderBuyDetails(c, http.StatusOK, v, checkoutview.DetailsView{Name: v.Name, Email: v.Email})
}

func (h *Handler) renderBuyDetails(c echo.Context, status int, v visit.Buy, d checkoutview.DetailsView) error {
	o, err := h.Ticketing.GetOrder(c.Request().Context(), v.UserSessionID)
	if err != nil {
		return h.buyEnded(c, v, err)
	}
	d.Session, d.ActionURL, d.BackURL, d.CSRFToken = h.buyHeader(c.Request().Context(), v), h.Site.URL("buy.details"), h.Site.URL("buy.seats"), web.CSRFToken(c)
	d.Countdown = h.buyCountdown(c, v, o)
	d.Counter = h.Site.AtCounter(c)
	if d.Kiosk = web.IsKiosk(c) && h.Visits.HasReader(c); d.Kiosk {
		d.BackURL = h.Site.URL("buy.summary")
	}
	title := web.Loc(c).T("checkout.details_title")
	if d.Counter {
		title = web.Loc(c).T("checkout.counter.details_title")
	}
	return h.Site.Render(c, status, title, checkoutview.Details(d))
}

// validEmail accepts a plain address (no display name), with a dot in the domain.
func validEmail(e string) bool {
	if len(e) > 254 || strings.ContainsAny(e, " \t\r\n<>") {
		return false
	}
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e {
		return false
	}
	at := strings.LastIndexByte(e, '@')
	return at > 0 && strings.Contains(e[at+1:], ".")
}

// saveBuyDetails keeps the name and e-mail in the visit.
func (h *Handler) saveBuyDetails(c echo.Context) error {
	v, err := h.requireBuy(c)
	if err != nil {
		return err
	}
	if web.IsKiosk(c) && h.Visits.HasReader(c) {
		return h.saveKioskDetails(c, v)
	}
	name := strings.Join(strings.Fields(c.FormValue("name")), " ")
	email := strings.TrimSpace(c.FormValue("email"))
	d := checkoutview.DetailsView{Name: name, Email: email}
	l := web.Loc(c)
	counter := h.Site.AtCounter(c) // a walk-in customer at the box office need not give either
	if name == "" && !counter {
		d.NameError = l.T("checkout.details_name_missing")
	} else if utf8.RuneCountInString(name) > 100 {
		d.NameError = l.T("checkout.details_name_long", "Max", 100)
	}
	if email == "" && !counter {
		d.EmailError = l.T("checkout.details_email_missing")
	} else if email != "" && !validEmail(email) {
		d.EmailError = l.T("checkout.details_email_invalid")
	}
	if d.NameError != "" || d.EmailError != "" {
		return h.renderBuyDetails(c, http.StatusUnprocessableEntity, v, d)
	}
	v.Name, v.Email = name, email
	h.Visits.SaveBuy(c, v)
	return web.Redirect(c, h.Site.URL("buy.summary"))
}

// saveKioskDetails is the kiosk's e-mail form: a key of the on-screen keyboard types (the page
// comes back with it), Skip keeps no address, and an address given must be one.
func (h *Handler) saveKioskDetails(c echo.Context, v visit.Buy) error {
	email := strings.TrimSpace(c.FormValue("email"))
	if key := c.FormValue("key"); key != "" {
		_, email = keypad.ApplyKey("", email, key)
		return h.renderBuyDetails(c, http.StatusOK, v, checkoutview.DetailsView{Email: email})
	}
	if c.FormValue("skip") != "" {
		email = ""
	}
	if email != "" && !validEmail(email) {
		return h.renderBuyDetails(c, http.StatusUnprocessableEntity, v, checkoutview.DetailsView{Email: email, EmailError: web.Loc(c).T("checkout.details_email_invalid")})
	}
	v.Email = email
	h.Visits.SaveBuy(c, v)
	return web.Redirect(c, h.Site.URL("buy.summary"))
}
