package holds

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// DefaultLifetime is how long a hold counts without news from the upstream when
// Keeper.Lifetime is 0: the upstream's own hold on the seats.
const DefaultLifetime = 20 * time.Minute

// OrderReader reads an order from the ticketing system: the keeper asks whether an order whose
// end it did not see still holds seats.
type OrderReader interface {
	GetOrder(ctx context.Context, userSessionID string) (cinema.Order, error)
}

// Payment is what the payment records say about an order, as far as its hold is concerned.
type Payment int

const (
	PaymentUnknown   Payment = iota // no record, or one that says nothing about the seats: ask the upstream
	PaymentUnderWay                 // a payment is under way: the order holds its seats
	PaymentCompleted                // booked
	PaymentGivenUp                  // its payment never completed within the watch window
)

// Keeper does the bookkeeping of the open orders of the BFF's clients: it records a hold when
// an order is made, moves its expiry when the upstream gives the order more time and ends it
// when the order stops holding seats. It never fails its caller's request: a hold it could not
// write stops counting at its expiry anyway. A Keeper with no Store (no database) does nothing.
type Keeper struct {
	Store  *Store
	Orders OrderReader
	// Payment reads what the payment records say about an order (nil: nothing, ask the
	// upstream). A function, not the checkout store, so this package does not import checkout,
	// which ends holds when its orders end.
	Payment func(ctx context.Context, userSessionID string) Payment
	Now     func() time.Time // nil: time.Now
	// Logger returns the logger for ctx (a request's, or the server's); nil: slog.Default.
	Logger func(ctx context.Context) *slog.Logger
	// Lifetime is the longest a hold counts without news from the upstream (0: DefaultLifetime).
	Lifetime time.Duration
	// MaxOrdersPerClient is how many open orders one client may hold (<= 0: no limit).
	MaxOrdersPerClient int
}

func (k *Keeper) now() time.Time {
	if k.Now != nil {
		return k.Now()
	}
	return time.Now()
}

func (k *Keeper) log(ctx context.Context) *slog.Logger {
	if k.Logger != nil {
		if l := k.Logger(ctx); l != nil {
			return l
		}
	}
	return slog.Default()
}

func (k *Keeper) lifetime() time.Duration {
	if k.Lifetime > 0 {
		return k.Lifetime
	}
	return DefaultLifetime
}

// OrderGone reports an upstream answer meaning the order holds no seats any more.
func OrderGone(err error) bool {
	return errors.Is(err, upstream.ErrNotFound) || errors.Is(err, upstream.ErrOrderExpired)
}

// Until is until when an order counts against its client: its upstream expiry when known,
// never later than the hold lifetime from now.
func (k *Keeper) Until(expires time.Time) time.Time {
	now := k.now()
	latest := now.Add(k.lifetime())
	if expires.IsZero() || !expires.After(now) || expires.After(latest) {
		return latest
	}
	return expires
}

// Open records the order usid (seats) for the client key before the upstream is asked for it.
// When the client already holds MaxOrdersPerClient open orders (the order it replaces not
// counted), the orders whose end was not seen are settled first and counted again; if it is
// still at its limit, the error is a *LimitError.
func (k *Keeper) Open(ctx context.Context, key, usid string, seats int, replaces string) error {
	if k.Store == nil {
		return nil
	}
	h := Hold{UserSessionID: usid, ClientKey: key, Seats: seats, Expires: k.now().Add(k.lifetime())}
	err := k.Store.Open(ctx, h, k.MaxOrdersPerClient, replaces)
	if errors.Is(err, ErrLimit) && k.Settle(ctx, key, replaces) {
		err = k.Store.Open(ctx, h, k.MaxOrdersPerClient, replaces) // some had ended unseen: count again
	}
	return err
}

// OpenFor lists the client's holds that count now, oldest first (none without a store).
func (k *Keeper) OpenFor(ctx context.Context, key string) ([]Hold, error) {
	if k.Store == nil {
		return nil, nil
	}
	return k.Store.OpenFor(ctx, key)
}

// Started records what the upstream said about the order it just created.
func (k *Keeper) Started(ctx context.Context, usid string, o cinema.Order) {
	k.Extend(ctx, usid, o.Expires)
}

// Extend moves the hold's expiry after the upstream gave the order more time.
func (k *Keeper) Extend(ctx context.Context, usid string, expires time.Time) {
	if k.Store == nil {
		return
	}
	if err := k.Store.Extend(ctx, usid, k.Until(expires)); err != nil {
		k.log(ctx).Warn("extend order hold", "err", err)
	}
}

// Extended follows ResetOrderExpiry: the order's new expiry when the upstream returned the
// order, else a full hold lifetime from now.
func (k *Keeper) Extended(ctx context.Context, usid string, r upstream.ExpiryReset) {
	var expires time.Time
	if r.Order != nil {
		expires = r.Order.Expires
	}
	k.Extend(ctx, usid, expires)
}

// End marks the order's hold ended for reason: it completed, was cancelled, expired or was
// given up. Safe to call for any order and more than once; it outlives a cancelled request
// (the order did end).
func (k *Keeper) End(ctx context.Context, usid, reason string) {
	if k.Store == nil || usid == "" {
		return
	}
	if _, err := k.Store.End(context.WithoutCancel(ctx), usid, reason); err != nil {
		k.log(ctx).Warn("end order hold", "reason", reason, "err", err)
	}
}

// Drop forgets the hold of an order the upstream did not create.
func (k *Keeper) Drop(ctx context.Context, usid string) {
	if k.Store == nil {
		return
	}
	if err := k.Store.Forget(context.WithoutCancel(ctx), usid); err != nil {
		k.log(ctx).Warn("forget order hold", "err", err)
	}
}

// Settle asks what became of the client's open orders whose end was not seen (paid in another
// visit and confirmed by the background watcher, cancelled by a kiosk's reset, run out) and
// ends those that hold no seats any more; except is left alone. It reports whether it ended
// any. Called only when the client is at its limit, so at most a few orders are looked at.
func (k *Keeper) Settle(ctx context.Context, key, except string) bool {
	if k.Store == nil {
		return false
	}
	open, err := k.Store.OpenFor(ctx, key)
	if err != nil {
		k.log(ctx).Warn("list open orders", "err", err)
		return false
	}
	ended := false
	for i, h := range open {
		if i >= 2*k.MaxOrdersPerClient {
			break
		}
		if h.UserSessionID == except {
			continue
		}
		reason := ""
		if k.Payment != nil {
			switch k.Payment(ctx, h.UserSessionID) {
			case PaymentCompleted:
				reason = ReasonCompleted
			case PaymentGivenUp:
				reason = ReasonGivenUp
			case PaymentUnderWay:
				continue // its payment is under way: it holds its seats
			}
		}
		if reason == "" {
			o, err := k.Orders.GetOrder(ctx, h.UserSessionID)
			switch {
			case OrderGone(err):
				reason = ReasonExpired
			case err == nil:
				k.Extend(ctx, h.UserSessionID, o.Expires) // alive: what the upstream says now
			}
		}
		if reason != "" {
			if ok, err := k.Store.End(ctx, h.UserSessionID, reason); err == nil && ok {
				ended = true
			}
		}
	}
	return ended
}
