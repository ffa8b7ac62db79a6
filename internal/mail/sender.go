package mail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"time"
)

// Defaults of the Sender's settings.
const (
	DefaultLease       = 2 * time.Minute
	DefaultMaxAttempts = 12
	// markTimeout bounds recording an outcome. It runs even when the delivery's context has
	// ended: a mail that went out must be marked sent, or it is sent again after the lease.
	markTimeout = 10 * time.Second
	batchSize   = 20
)

// Sender delivers due outbox messages. Any number of Senders, on any number of replicas, may
// run on one database: each message is claimed by one of them at a time. Set the fields, then
// use it by pointer (it must not be copied once used).
type Sender struct {
	Outbox    *Outbox
	Compose   Composer
	Transport Transport
	From      string       // the From address of every message
	Logger    *slog.Logger // nil: slog.Default()
	// Replica names who claims, in claimed_by and the logs (default: hostname and pid).
	Replica string
	// Lease is how long a claim holds (default 2m). A claim older than this is taken for a
	// crash and claimed again; composing and delivering get half of it, so a slow relay does
	// not outlive its claim.
	Lease time.Duration
	// MaxAttempts is how many claims a message gets before it is undeliverable (default 12).
	MaxAttempts int
	// Backoff says how long to wait after the attempt-th failed attempt (default
	// DefaultBackoff).
	Backoff func(attempt int) time.Duration

	kickOnce sync.Once
	kick     chan struct{}
}

// DefaultBackoff waits 10s after the first failure and twice as long after each next one, up
// to 30 minutes, give or take a fifth so that messages failed together do not retry together.
func DefaultBackoff(attempt int) time.Duration {
	const first, ceiling = 10 * time.Second, 30 * time.Minute
	d := first
	for i := 1; i < attempt && d < ceiling; i++ {
		d *= 2
	}
	d = min(d, ceiling)
	return d - d/5 + rand.N(2*d/5+1)
}

var defaultReplica = sync.OnceValue(func() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "replica-" + newID()[:8]
	}
	return host + "-" + strconv.Itoa(os.Getpid())
})

func (s *Sender) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

func (s *Sender) replica() string {
	if s.Replica != "" {
		return s.Replica
	}
	return defaultReplica()
}

func (s *Sender) lease() time.Duration {
	if s.Lease > 0 {
		return s.Lease
	}
	return DefaultLease
}

func (s *Sender) maxAttempts() int {
	if s.MaxAttempts > 0 {
		return s.MaxAttempts
	}
	return DefaultMaxAttempts
}

func (s *Sender) backoff(attempt int) time.Duration {
	if s.Backoff != nil {
		return s.Backoff(attempt)
	}
	return DefaultBackoff(attempt)
}

// Kick asks a running Run to look for due messages now (after an enqueue). It never blocks.
func (s *Sender) Kick() {
	select {
	case s.kickChan() <- struct{}{}:
	default: // a kick is pending already
	}
}

func (s *Sender) kickChan() chan struct{} {
	s.kickOnce.Do(func() { s.kick = make(chan struct{}, 1) })
	return s.kick
}

// Run delivers due messages every interval, and soon after a Kick, until ctx ends.
func (s *Sender) Run(ctx context.Context, every time.Duration) {
	if every <= 0 {
		every = 30 * time.Second
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-s.kickChan():
		}
		if _, err := s.RunOnce(ctx); err != nil && ctx.Err() == nil {
			s.logger().Error("mail sender round failed", "replica", s.replica(), "err", err)
		}
		timer.Reset(every)
	}
}

// RunOnce claims the due messages one at a time and delivers each, and returns how many went
// out. Failed deliveries are recorded on the message (pending again after a backoff, or
// undeliverable), not returned: err is for the sender itself (its settings, the database).
func (s *Sender) RunOnce(ctx context.Context) (delivered int, err error) {
	if s.Outbox == nil || s.Compose == nil || s.Transport == nil {
		return 0, errors.New("mail sender: Outbox, Compose and Transport are required")
	}
	if err := checkFrom(s.From); err != nil {
		return 0, err
	}
	seen := map[string]bool{} // each message once per round, even with a zero backoff
	for {
		ids, err := s.due(ctx)
		if err != nil {
			return delivered, err
		}
		fresh := 0
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			fresh++
			if err := ctx.Err(); err != nil {
				return delivered, err
			}
			sent, err := s.deliverOne(ctx, id)
			if sent {
				delivered++
			}
			if err != nil {
				return delivered, err
			}
		}
		if fresh == 0 || len(ids) < batchSize {
			return delivered, nil
		}
	}
}

// due lists messages that may be claimed now: pending and due, or sending with an expired lease.
func (s *Sender) due(ctx context.Context) ([]string, error) {
	now := s.Outbox.now().UnixMilli()
	rows, err := s.Outbox.db.QueryContext(ctx, `SELECT id FROM mail_outbox
		WHERE (state = $1 AND next_at <= $2) OR (state = $3 AND lease_until < $2)
		ORDER BY next_at, id LIMIT $4`, StatePending, now, StateSending, batchSize)
	if err != nil {
		return nil, fmt.Errorf("mail due: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("mail due scan: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("mail due: %w", err)
	}
	return ids, nil
}

// claim is one sender's hold on one message.
type claim struct {
	token string // claimed_by: the replica and a token unique to this claim
	stale bool   // taken over from a claim whose lease ran out
}

// claimOne takes message id for this sender if it is still claimable: a compare-and-set, so of
// two senders racing for it exactly one wins (ok=false for the other).
func (s *Sender) claimOne(ctx context.Context, id string) (c claim, ok bool, err error) {
	now := s.Outbox.now()
	c.token = s.replica() + "#" + newID()[:12]
	until := now.Add(s.lease()).UnixMilli()
	for _, stale := range []bool{false, true} {
		q := `UPDATE mail_outbox SET state=$1, claimed_by=$2, lease_until=$3, attempts=attempts+1, updated_at=$4
			WHERE id=$5 AND state=$6 AND next_at <= $4`
		from := StatePending
		if stale {
			q = `UPDATE mail_outbox SET state=$1, claimed_by=$2, lease_until=$3, attempts=attempts+1, updated_at=$4
				WHERE id=$5 AND state=$6 AND lease_until < $4`
			from = StateSending
		}
		res, err := s.Outbox.db.ExecContext(ctx, q, StateSending, c.token, until, now.UnixMilli(), id, from)
		if err != nil {
			return claim{}, false, fmt.Errorf("mail claim %s: %w", id, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return claim{}, false, fmt.Errorf("mail claim %s: %w", id, err)
		}
		if n == 1 {
			c.stale = stale
			return c, true, nil
		}
	}
	return claim{}, false, nil
}

// deliverOne claims, composes, delivers and records one message. sent says it went out.
func (s *Sender) deliverOne(ctx context.Context, id string) (sent bool, err error) {
	c, ok, err := s.claimOne(ctx, id)
	if err != nil || !ok {
		return false, err
	}
	m, err := s.Outbox.Get(ctx, id)
	if err != nil {
		return false, err
	}
	log := s.logger().With("id", m.ID, "kind", m.Kind, "attempt", m.Attempts, "replica", s.replica())
	if c.stale {
		log.Warn("mail claim expired, claiming again: the previous sender may have died mid-delivery")
		if m.Attempts > s.maxAttempts() {
			// Claims keep expiring: something kills the sender on this message. Stop.
			return false, s.fail(ctx, m, c, fmt.Errorf("%w: gave up after %d claims without an outcome", ErrPermanent, m.Attempts-1), log)
		}
	}
	dctx, cancel := context.WithTimeout(ctx, s.lease()/2)
	err = s.composeAndDeliver(dctx, m)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			// Shutting down: give the message back untouched by backoff.
			return false, s.release(ctx, m, c, log)
		}
		return false, s.fail(ctx, m, c, err, log)
	}
	return true, s.markSent(ctx, m, c, log)
}

// composeAndDeliver renders, builds and delivers m, turning a panic in the composer or transport into
// an error so that one bad message cannot stop the sender.
func (s *Sender) composeAndDeliver(ctx context.Context, m Message) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("mail %s: panic: %v", m.ID, p)
		}
	}()
	r, err := s.Compose(ctx, m)
	if err != nil {
		return fmt.Errorf("compose: %w", err)
	}
	msg, err := Build(s.From, m, r)
	if err != nil {
		return err
	}
	if err := s.Transport.Deliver(ctx, m, msg); err != nil {
		return fmt.Errorf("deliver: %w", err)
	}
	return nil
}

// finish writes the outcome of claim c if c still holds (compare-and-set on claimed_by). It
// reports false when another sender has taken the message over meanwhile.
func (s *Sender) finish(ctx context.Context, id string, c claim, set string, args ...any) (held bool, err error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), markTimeout)
	defer cancel()
	n := len(args)
	q := `UPDATE mail_outbox SET ` + set + `, lease_until=0, updated_at=$` + strconv.Itoa(n+1) +
		` WHERE id=$` + strconv.Itoa(n+2) + ` AND state=$` + strconv.Itoa(n+3) + ` AND claimed_by=$` + strconv.Itoa(n+4)
	args = append(args, s.Outbox.now().UnixMilli(), id, StateSending, c.token)
	res, err := s.Outbox.db.ExecContext(ctx, q, args...)
	if err != nil {
		return false, fmt.Errorf("mail record %s: %w", id, err)
	}
	rows, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("mail record %s: %w", id, err)
	}
	return rows == 1, nil
}

func (s *Sender) markSent(ctx context.Context, m Message, c claim, log *slog.Logger) error {
	held, err := s.finish(ctx, m.ID, c, `state=$1, sent_at=$2, last_error=''`, StateSent, s.Outbox.now().UnixMilli())
	if err != nil {
		log.Error("mail sent but not recorded: it will be sent again after the lease", "message_id", m.MessageID, "err", err)
		return err
	}
	if !held {
		log.Warn("mail sent after its claim expired: another sender may send it again", "message_id", m.MessageID)
		return nil
	}
	log.Info("mail sent", "message_id", m.MessageID)
	return nil
}

func (s *Sender) fail(ctx context.Context, m Message, c claim, cause error, log *slog.Logger) error {
	text := truncate(cause.Error(), 500)
	permanent := errors.Is(cause, ErrPermanent)
	if permanent || m.Attempts >= s.maxAttempts() {
		held, err := s.finish(ctx, m.ID, c, `state=$1, last_error=$2`, StateUndeliverable, text)
		if err != nil {
			return err
		}
		if held {
			log.Error("mail undeliverable", "permanent", permanent, "err", cause)
		}
		return nil
	}
	next := s.Outbox.now().Add(s.backoff(m.Attempts))
	held, err := s.finish(ctx, m.ID, c, `state=$1, last_error=$2, next_at=$3`, StatePending, text, next.UnixMilli())
	if err != nil {
		return err
	}
	if held {
		log.Warn("mail delivery failed, will retry", "next_at", next, "err", cause)
	}
	return nil
}

// release gives a claimed message back as due now, for a sender that stops mid-delivery.
func (s *Sender) release(ctx context.Context, m Message, c claim, log *slog.Logger) error {
	_, err := s.finish(ctx, m.ID, c, `state=$1, next_at=$2`, StatePending, s.Outbox.now().UnixMilli())
	if err == nil {
		log.Info("mail sender stopping: message released")
	}
	return err
}
