package passes

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/cinemabff/cinemabff/internal/wallet/apns"
)

// Pusher sends the empty pass-update push to one device (an *apns.Client).
type Pusher interface {
	Push(ctx context.Context, deviceToken string) error
}

// Notifier tells the phones holding a booking's passes that the booking changed: it marks the
// passes updated and pushes to every registered device, forgetting devices APNs no longer knows.
type Notifier struct {
	Store  *Store
	Pusher Pusher
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Changed is called after every confirmed change of the booking. Each failure is logged and
// all of them are returned joined; a device APNs calls unregistered (410) is unregistered and
// is not an error. While APNs is failing the retries take seconds, so call it off the request
// path, with a context that outlives the request.
func (n *Notifier) Changed(ctx context.Context, cinemaID string, number int64) error {
	now := time.Now
	if n.Now != nil {
		now = n.Now
	}
	tokens, err := n.Store.Touch(ctx, cinemaID, number, now())
	if err != nil {
		n.logger().Error("wallet passes not marked updated", "cinema", cinemaID, "booking", number, "err", err)
		return fmt.Errorf("booking %s/%d changed: %w", cinemaID, number, err)
	}
	return n.push(ctx, tokens, "cinema", cinemaID, "booking", number)
}

// Voided voids the pass (a removed ticket's) and pushes to its devices so they show it void.
func (n *Notifier) Voided(ctx context.Context, passType, serial string) error {
	tokens, err := n.Store.Void(ctx, passType, serial)
	if err != nil {
		n.logger().Error("wallet pass not voided", "pass_type", passType, "serial", serial, "err", err)
		return fmt.Errorf("void pass %s/%s: %w", passType, serial, err)
	}
	return n.push(ctx, tokens, "pass_type", passType, "serial", serial)
}

func (n *Notifier) push(ctx context.Context, tokens []string, about ...any) error {
	log := n.logger().With(about...)
	var errs []error
	for _, tok := range tokens {
		err := n.Pusher.Push(ctx, tok)
		switch {
		case err == nil:
			log.Info("wallet pass update pushed", "device_token", apns.ShortToken(tok))
		case errors.Is(err, apns.ErrUnregistered):
			// The phone removed the pass or the app; pushing again would only earn more 410s.
			removed, ferr := n.Store.ForgetPushToken(ctx, tok)
			if ferr != nil {
				log.Error("unregistered device not forgotten", "device_token", apns.ShortToken(tok), "err", ferr)
				errs = append(errs, ferr)
				continue
			}
			log.Info("device unregistered after APNs 410", "device_token", apns.ShortToken(tok), "registrations", removed)
		default:
			log.Error("wallet pass update not pushed", "device_token", apns.ShortToken(tok), "err", err)
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (n *Notifier) logger() *slog.Logger {
	if n.Logger == nil {
		return slog.Default()
	}
	return n.Logger
}
