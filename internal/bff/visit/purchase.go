package visit

import (
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
)

// Server-session keys of the purchase flow.
const (
	SessBuy       = "buy"        // JSON of Buy
	SessBuyRefs   = "buy.refs"   // JSON list of payment record ids this visit may see without a token
	SessBuyNotice = "buy.notice" // one-shot warning for the summary (payment declined or cancelled)
)

// Buy is the purchase in progress, kept only in the server session: the upstream's
// userSessionId never reaches the browser.
type Buy struct {
	UserSessionID string    `json:"usid"`
	CinemaID      string    `json:"cinema"`
	SessionID     string    `json:"session"`
	FilmTitle     string    `json:"film"`
	Showtime      time.Time `json:"showtime"`
	Screen        string    `json:"screen"`
	Places        int       `json:"places"` // seats the tickets need
	Name          string    `json:"name,omitempty"`
	Email         string    `json:"email,omitempty"`
	Started       time.Time `json:"started"`
}

// The visit's purchase in progress, and the payment records it may see.
var (
	buyInSession     = web.SessionValue[Buy]{Key: SessBuy}
	buyRefsInSession = web.SessionValue[[]string]{Key: SessBuyRefs}
)

func (v *Visits) CurrentBuy(c echo.Context) (Buy, bool) {
	buy, ok := buyInSession.Get(c.Request().Context(), v.kernel.Sessions)
	if !ok || buy.UserSessionID == "" {
		return Buy{}, false
	}
	return buy, true
}

func (v *Visits) SaveBuy(c echo.Context, buy Buy) {
	buyInSession.Put(c.Request().Context(), v.kernel.Sessions, buy)
	v.kernel.Sessions.Remove(c.Request().Context(), SessBuyDone) // a new purchase: the last one is no longer "this step"
}

func (v *Visits) ClearBuy(c echo.Context) {
	buyInSession.Remove(c.Request().Context(), v.kernel.Sessions)
}

// BuyRefs are the payment records this visit started or proved (by the token) it may see.
func (v *Visits) BuyRefs(c echo.Context) []string {
	refs, _ := buyRefsInSession.Get(c.Request().Context(), v.kernel.Sessions)
	return refs
}

func (v *Visits) AddBuyRef(c echo.Context, ref string) {
	refs := v.BuyRefs(c)
	if slices.Contains(refs, ref) {
		return
	}
	refs = append(refs, ref)
	if len(refs) > 10 {
		refs = refs[len(refs)-10:]
	}
	buyRefsInSession.Put(c.Request().Context(), v.kernel.Sessions, refs)
}

// MaxTicketsPerOrder bounds one purchase (the upstream takes at most 40 places per call).
const MaxTicketsPerOrder = 10
