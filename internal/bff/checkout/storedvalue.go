package checkout

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/ratelimit"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// Gift cards and loyalty cards are stored value: a number and a PIN spend money. Each attempt
// counts against the card number, the client and the visit (limits.go) in the shared limit
// store, so every replica counts the same attempts. A refusal is one answer, whatever was
// wrong, and only refusals count.

// storedValueKind names a kind of card in limit keys.
type storedValueKind string

const (
	giftCardKind storedValueKind = "giftcard"
	loyaltyKind  storedValueKind = "loyalty"
)

// storedValueLimits are the limits an attempt with card counts against. A visit without a
// session token yet counts against its client alone.
func (h *Handler) storedValueLimits(c echo.Context, kind storedValueKind, card string) []ratelimit.Limit {
	prefix := "storedvalue:" + string(kind) + ":"
	limits := []ratelimit.Limit{
		{Key: prefix + "card:" + limitKeyHash(card), Rule: storedValuePerCard},
		{Key: prefix + "client:" + web.ClientKey(c), Rule: storedValuePerClient},
	}
	if tok := h.Sessions.Token(c.Request().Context()); tok != "" {
		limits = append(limits, ratelimit.Limit{Key: prefix + "visit:" + limitKeyHash(tok), Rule: storedValuePerVisit})
	}
	return limits
}

// limitKeyHash keeps card numbers and session tokens out of the limit store in the clear.
func limitKeyHash(v string) string {
	sum := sha256.Sum256([]byte(v))
	return hex.EncodeToString(sum[:16])
}

// storedValueResult is what came of one attempt to pay with a card.
type storedValueResult struct {
	Applied upstream.AppliedPaymentResult // accepted: what was taken
	Refused bool                          // the ticketing system refused the card or its PIN
	Wait    time.Duration                 // > 0: too many refusals; the ticketing system was not asked
	Failed  error                         // the order ended or the ticketing system failed: for buyEnded
}

// tryStoredValue pays with a card within its limits. The error is the limit store's.
func (h *Handler) tryStoredValue(c echo.Context, kind storedValueKind, card string,
	apply func(context.Context) (upstream.AppliedPaymentResult, error)) (storedValueResult, error) {
	ctx := c.Request().Context()
	limits := h.storedValueLimits(c, kind, card)
	ok, wait, err := ratelimit.TakeAll(ctx, h.Limits, limits...)
	if err != nil {
		return storedValueResult{}, fmt.Errorf("take %s attempt: %w", kind, err)
	}
	if !ok {
		return storedValueResult{Wait: max(wait, time.Second)}, nil
	}
	res, err := apply(ctx)
	switch {
	case err == nil:
		h.giveBackStoredValue(ctx, kind, limits)
		return storedValueResult{Applied: res}, nil
	case cardRefused(err):
		return storedValueResult{Refused: true}, nil // counts
	}
	// The order ended or the ticketing system failed: not the card's fault. Unless the person
	// left before the answer (the card may have been taken; they can look at the order).
	if ctx.Err() == nil {
		h.giveBackStoredValue(ctx, kind, limits)
	}
	return storedValueResult{Failed: err}, nil
}

func (h *Handler) giveBackStoredValue(ctx context.Context, kind storedValueKind, limits []ratelimit.Limit) {
	if err := ratelimit.GiveAll(ctx, h.Limits, limits...); err != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("give back stored value attempt", "kind", string(kind), "err", err)
	}
}

// cardRefused reports whether err is the ticketing system's refusal of the card: an unknown
// number, a wrong or missing PIN, no balance, another currency, nothing it may pay. The person
// gets one answer for all of them, so that no answer confirms that a card exists.
func cardRefused(err error) bool {
	var ue *upstream.Error
	return errors.As(err, &ue) && !orderEnded(err) &&
		!errors.Is(err, upstream.ErrUnavailable) && !errors.Is(err, upstream.ErrUnauthorized)
}

// orderEnded reports whether err is about the order (gone, expired, awaiting its payment), which
// the ticketing system checks before the card.
func orderEnded(err error) bool {
	var ue *upstream.Error
	return errors.Is(err, upstream.ErrOrderExpired) || errors.Is(err, upstream.ErrOrderClosed) ||
		errors.As(err, &ue) && errors.Is(err, upstream.ErrNotFound) && ue.ExtendedResultCode == upstream.ExtOrderNotFound
}

// storedValueTooMany answers an attempt refused by a limit: 429 with Retry-After, and the
// summary with f's message. The message is the same for every card number, known or not.
func (h *Handler) storedValueTooMany(c echo.Context, wait time.Duration, f summaryForm) error {
	c.Response().Header().Set("Retry-After", strconv.Itoa(words.WholeSeconds(wait.Seconds())))
	return h.renderBuySummary(c, http.StatusTooManyRequests, nil, f)
}

// tooManyCardAttempts is the message of a refused attempt, in l's language.
func tooManyCardAttempts(l *i18n.Localizer, wait time.Duration) string {
	if wait > time.Minute {
		wait = (wait + time.Minute - 1).Truncate(time.Minute) // "15 minutes", not "899 seconds"
	}
	return l.T("checkout.card_too_many", "Wait", l.Duration(wait))
}

// Stored value limits: gift cards and loyalty cards. Only refused
// attempts count, as above. Unlike a booking number, a card number is limited for everybody:
// after five refusals it is refused for 15 minutes, whatever the PIN, from every client and
// visit, so a PIN cannot be guessed by spreading the tries. The number counts as typed, known
// or not, so the refusal says nothing about it. The price: someone who knows a card's number
// can hold it up for 15 minutes.
var (
	// storedValuePerCard: refused attempts with one card number (5, then one every 15 minutes).
	storedValuePerCard = ratelimit.Rule{Burst: 5, Every: 15 * time.Minute}
	// storedValuePerClient: refused attempts of one client, whatever the card (trying many cards).
	storedValuePerClient = ratelimit.Rule{Burst: 10, Every: 3 * time.Minute}
	// storedValuePerVisit: refused attempts of one visit (a client whose address changes).
	storedValuePerVisit = ratelimit.Rule{Burst: 10, Every: 3 * time.Minute}
)
