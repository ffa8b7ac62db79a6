package bff

import (
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// "payments.webhook" is where the payment provider posts its events. It is signed by the
// provider, not by a browser: no session, no device cookie, no CSRF token.

// WebhookVerifier checks a provider event's signature and reads it (upstream.StripePayments).
type WebhookVerifier interface {
	ParseWebhook(payload []byte, signature string) (upstream.PaymentEvent, error)
}

// MaxWebhookBytes bounds an event body. Ours are a few kilobytes, but Stripe's events carry the
// whole object and can be far larger than the site's body limit (Config.BodyLimit, 64 KB),
// which does not apply to this route.
const MaxWebhookBytes = 1 << 20

// paymentWebhook acts on a verified provider event once: a completed or expired checkout
// moves its ledger entry on (so an edit is applied even when the customer never comes back
// from the provider's page), a refund update moves the refunds of that payment on. A bad or
// old signature is refused with 400 and changes nothing; an event seen before is acknowledged
// and not acted on again; an event that could not be acted on is released and answered 500, so
// the provider delivers it again (the reconciler would also get there).
func (s *Server) paymentWebhook(c echo.Context) error {
	if s.webhooks == nil {
		return echo.ErrNotFound
	}
	ctx := c.Request().Context()
	log := web.LoggerFrom(ctx, s.Kernel.Logger)
	body, err := io.ReadAll(io.LimitReader(c.Request().Body, MaxWebhookBytes+1))
	if err != nil || len(body) > MaxWebhookBytes {
		return c.String(http.StatusBadRequest, "unreadable or too large event\n")
	}
	ev, err := s.webhooks.ParseWebhook(body, c.Request().Header.Get("Stripe-Signature"))
	if err != nil {
		log.Warn("payment webhook refused", "err", err)
		return c.String(http.StatusBadRequest, "signature not valid\n")
	}
	claimed, err := s.inbox.Claim(ctx, ev.ID, ev.Type)
	if err != nil {
		log.Error("payment webhook inbox", "event", ev.ID, "err", err)
		return c.String(http.StatusInternalServerError, "try again\n")
	}
	if !claimed {
		log.Info("payment webhook seen before", "event", ev.ID, "type", ev.Type)
		return c.String(http.StatusOK, "already handled\n")
	}
	if err := s.Settler.ActOnPaymentEvent(ctx, ev); err != nil {
		log.Warn("payment webhook not acted on; the provider will deliver it again", "event", ev.ID, "type", ev.Type, "err", err)
		if rerr := s.inbox.Release(ctx, ev.ID); rerr != nil {
			log.Error("payment webhook release", "event", ev.ID, "err", rerr)
		}
		return c.String(http.StatusInternalServerError, "not handled yet\n")
	}
	if err := s.inbox.Done(ctx, ev.ID); err != nil {
		log.Error("payment webhook done", "event", ev.ID, "err", err)
	}
	log.Info("payment webhook handled", "event", ev.ID, "type", ev.Type, "payment", ev.PaymentID)
	return c.String(http.StatusOK, "ok\n")
}
