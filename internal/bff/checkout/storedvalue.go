package checkout

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
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

func digitsOnly(s string) string {
	return strings.NewReplacer(" ", "", "-", "").Replace(strings.TrimSpace(s))
}

func allDigits(s string, minLen, maxLen int) bool {
	if len(s) < minLen || len(s) > maxLen {
		return false
	}
	return strings.Trim(s, "0123456789") == ""
}

// storedValueCard is what differs between paying with a gift card and with loyalty points:
// the number's length, the words, where the form's message goes, and the ticketing operation.
type storedValueCard struct {
	kind                      storedValueKind
	minDigits                 int
	numberInvalid, pinInvalid string // message ids
	refused, used             string // message ids
	typed                     func(f *summaryForm, card, msg string)
	apply                     func(s *Handler, ctx context.Context, userSessionID, card, pin string) (upstream.AppliedPaymentResult, error)
}

var (
	giftCard = storedValueCard{kind: giftCardKind, minDigits: 12,
		numberInvalid: "checkout.gift_card_number_invalid", pinInvalid: "checkout.gift_card_pin_invalid",
		refused: "checkout.gift_card_refused", used: "checkout.gift_card_used",
		typed: func(f *summaryForm, card, msg string) { f.GiftCard, f.GiftCardError = card, msg },
		apply: func(s *Handler, ctx context.Context, id, card, pin string) (upstream.AppliedPaymentResult, error) {
			return s.Ticketing.ApplyGiftCard(ctx, id, card, pin, nil)
		}}
	// Loyalty points are spent only with the member's PIN: the ticketing system checks it, and
	// the card number alone spends nothing.
	loyaltyCard = storedValueCard{kind: loyaltyKind, minDigits: 8,
		numberInvalid: "checkout.loyalty_number_invalid", pinInvalid: "checkout.loyalty_pin_invalid",
		refused: "checkout.loyalty_refused", used: "checkout.loyalty_used",
		typed: func(f *summaryForm, card, msg string) { f.Loyalty, f.LoyaltyError = card, msg },
		apply: func(s *Handler, ctx context.Context, id, card, pin string) (upstream.AppliedPaymentResult, error) {
			return s.Ticketing.ApplyLoyaltyPointsPayment(ctx, id, card, pin, nil)
		}}
)

// applyGiftCard pays part of the order with a gift card (before the redirect payment).
func (h *Handler) applyGiftCard(c echo.Context) error { return h.applyStoredValue(c, giftCard) }

// applyLoyalty pays part of the order with loyalty points.
func (h *Handler) applyLoyalty(c echo.Context) error { return h.applyStoredValue(c, loyaltyCard) }

// applyStoredValue pays part of the order with a card's number and PIN. Every refusal reads
// the same (a wrong number, a wrong PIN, an empty card), refusals are limited per card number,
// client and visit (storedvalue.go), and the balance shows only after the right PIN.
func (h *Handler) applyStoredValue(c echo.Context, sv storedValueCard) error {
	v, err := h.requireBuy(c)
	if err != nil {
		return err
	}
	if done, err := h.refuseChangeWhilePaying(c, v); done {
		return err // the amount being taken must stay the order's
	}
	l := web.Loc(c)
	typed := c.FormValue("card")
	card, pin := digitsOnly(typed), strings.TrimSpace(c.FormValue("pin"))
	var f summaryForm
	refuse := func(status int, msg string) error {
		sv.typed(&f, typed, msg)
		return h.renderBuySummary(c, status, nil, f)
	}
	if !allDigits(card, sv.minDigits, 19) {
		return refuse(http.StatusUnprocessableEntity, l.T(sv.numberInvalid, "Min", sv.minDigits, "Max", 19))
	}
	if !allDigits(pin, 3, 8) {
		return refuse(http.StatusUnprocessableEntity, l.T(sv.pinInvalid))
	}
	r, err := h.tryStoredValue(c, sv.kind, card, func(ctx context.Context) (upstream.AppliedPaymentResult, error) {
		return sv.apply(h, ctx, v.UserSessionID, card, pin)
	})
	switch {
	case err != nil:
		return err
	case r.Wait > 0:
		sv.typed(&f, typed, tooManyCardAttempts(l, r.Wait))
		return h.storedValueTooMany(c, r.Wait, f)
	case r.Failed != nil:
		return h.buyEnded(c, v, r.Failed)
	case r.Refused:
		return refuse(http.StatusUnprocessableEntity, l.T(sv.refused))
	}
	msg := l.T(sv.used, "Applied", l.Money(r.Applied.Applied), "ToPay", l.Money(r.Applied.ToPay))
	switch readerURL, stopped := h.stopStaleSale(c, v); {
	case readerURL != "":
		return web.Redirect(c, readerURL) // a card paid in that instant: its page says what follows
	case stopped:
		msg += " " + l.T("checkout.reader_stopped_for_change")
	}
	h.Site.Flash(c, msg)
	return web.Redirect(c, h.Site.URL("buy.summary"))
}
