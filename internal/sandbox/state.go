package sandbox

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
)

// DefaultToken is the API token used when Options.Token is empty.
const DefaultToken = "sandbox-dev-token"

// orderLifetime is how long an order lives after creation or the last
// ResetOrderExpiry (wire-profile "Order expiry").
const orderLifetime = 10 * time.Minute

// defaultCompletionDelay is how long the connector waits after a payment is
// paid before it completes the order.
const defaultCompletionDelay = time.Second

// Operations are the names used by Faults and Calls.
var Operations = []string{
	"Cinemas", "Films", "Sessions", "SeatPlan", "TicketTypes",
	"AddTickets", "RemoveTickets", "SetSelectedSeats", "GetOrder", "ResetOrderExpiry", "CancelOrder", "CompleteOrder",
	"ApplyGiftCard", "ApplyLoyaltyPointsPayment", "ExternalPaymentStarting", "GetOrderDetails",
	"EditBooking", "CompleteEditBooking", "GetSingleBooking", "SwapSeats", "MarkBookingCollected",
}

// Options configure a Server.
type Options struct {
	// Token is checked in the connectapitoken header; "" means DefaultToken.
	Token string
	// World is the starting state; nil means DefaultWorld(Clock.Now()).
	World *World
	// Clock is the sandbox's time; nil means real time.
	Clock Clock
	// CompletionDelay is how long the connector waits to complete a paid
	// redirect order; 0 means one second, negative means never.
	CompletionDelay time.Duration
	// Payments is the redirect payment provider (required). Ready-made
	// external payments are seeded into it and the connector subscribes to it.
	Payments *payprovider.Provider
	// Logger receives request and state logs; nil discards them.
	Logger *slog.Logger
	// EditsStayInSession makes the sandbox behave like a deployment that
	// refuses, in an edit, tickets for a session the edited booking does not
	// hold (no showtime change); Server.SetEditsStayInSession changes it later.
	EditsStayInSession bool
}

// Server is a stateful implementation of the upstream ticketing API.
type Server struct {
	token           string
	clock           Clock
	log             *slog.Logger
	pay             *payprovider.Provider
	completionDelay time.Duration
	faults          *Faults
	calls           map[string]*atomic.Int64
	handler         http.Handler
	uncheckedOnce   sync.Once   // warns once that raw header names cannot be checked
	editsStay       atomic.Bool // Options.EditsStayInSession, switchable at run time

	mu          sync.Mutex
	cinemas     map[string]*cinema
	cinemaList  []*cinema
	films       map[string]Film
	filmList    []Film
	sessions    map[int]*session
	orders      map[string]*order
	finished    map[string]bool // ids of cancelled or completed edit orders: calls answer "not found"
	bookings    map[string]*booking
	bookingNums map[bookingKey]*booking
	payOrders   map[string]*order // provider payment id -> order awaiting it
	giftCards   map[string]*giftCard
	loyalty     map[string]*loyaltyAccount
	nextBooking int64
	nextTrans   int64
	nextHistory int64
	nextExpiry  time.Time // no live order expires before this
	timers      map[*time.Timer]struct{}
	closed      bool
}

type bookingKey struct {
	cinema string
	number int64
}

type cinema struct {
	Cinema
	loc         *time.Location
	cats        map[string]*AreaCategory
	screens     map[int]*screenDef
	ticketTypes map[string]*TicketType
	concessions map[string]*Concession
	fees        []FeeRule // sorted by ValidFrom
	sessions    []*session
}

// feeAt is the booking fee rule valid at t.
func (c *cinema) feeAt(t time.Time) FeeRule {
	rule := FeeRule{}
	for _, fr := range c.fees {
		if !fr.ValidFrom.After(t) {
			rule = fr
		}
	}
	return rule
}

type session struct {
	id         int
	cinema     *cinema
	film       Film
	screen     *screenDef
	showtime   time.Time
	attributes []string
	adjust     int64   // price card: cents added per seat to every ticket type (Session.PriceAdjustInCents)
	owners     []owner // one per place of the screen
	plan       []byte  // cached seat-plan answer; nil when a seat changed
}

// owner says who has a place: a booking (sold, or reserved when unpaid) or
// a live order (held). Both nil: free.
type owner struct {
	booking *booking
	order   *order
}

// taxRate is the cinema's tax rate in percent: that of its latest fee rule.
func (c *cinema) taxRate() int64 { return c.fees[len(c.fees)-1].TaxRatePercent }

// ticketPrice is what a ticket type costs in this session, tax included, for
// all the seats it holds: the cinema's price plus the session's adjustment per
// seat, never below zero. An adjusted price carries its tax at the cinema's
// rate; an unadjusted one the ticket type's own tax.
func (ss *session) ticketPrice(tt *TicketType) (price, tax int64) {
	if ss.adjust == 0 {
		return tt.PriceInCents, tt.TaxInCents
	}
	price = max(tt.PriceInCents+ss.adjust*int64(max(tt.PackageSize, 1)), 0)
	return price, taxIncluded(price, ss.cinema.taxRate())
}

// seatPrices splits ticketPrice over the seats of the ticket type (one part
// per seat of a package) with splitPrice.
func (ss *session) seatPrices(tt *TicketType) (prices, taxes []int64) {
	price, tax := ss.ticketPrice(tt)
	n := max(tt.PackageSize, 1)
	return splitPrice(price, n), splitPrice(tax, n)
}

func (ss *session) status(idx int) int {
	o := ss.owners[idx]
	switch {
	case o.booking != nil && o.booking.paid:
		return seatSold
	case o.booking != nil, o.order != nil:
		return seatReserved
	}
	return ss.screen.seats[idx].kind
}

func (ss *session) setOwner(idx int, o owner) {
	ss.owners[idx] = o
	ss.plan = nil
}

func (ss *session) available() int {
	n := 0
	for i := range ss.owners {
		if ss.owners[i] == (owner{}) && ss.screen.seats[i].sellable() {
			n++
		}
	}
	return n
}

type booking struct {
	number         int64
	id             string
	cinema         *cinema
	transID        int64
	customerName   string
	customerEmail  string
	created        time.Time
	paid           bool
	inSeatDelivery bool
	tickets        []*bookedTicket
	concessions    []bookedConcession
	payments       []paymentRecord
	edit           *order    // the live edit order, if any
	collectedAt    time.Time // when its tickets were first printed (MarkBookingCollected); zero: never
}

type bookedTicket struct {
	seq    int
	sess   *session
	tt     *TicketType
	seat   int
	price  int64
	tax    int64
	fee    int64
	feeTax int64
	pkg    int // package group, 0 when not in a package
}

type bookedConcession struct {
	c   *Concession
	qty int
}

type paymentRecord struct {
	amount   int64 // negative for a refund
	ref      string
	tender   string
	masked   string
	cardType string
	external bool
}

func (b *booking) totals() (total, fees int64) {
	for _, t := range b.tickets {
		total += t.price + t.fee
		fees += t.fee
	}
	for _, c := range b.concessions {
		total += c.c.PriceInCents * int64(c.qty)
	}
	return total, fees
}

type giftCard struct {
	GiftCard
	reserved int64 // applied to live orders, not yet spent
}

type loyaltyAccount struct {
	LoyaltyMember
	reserved int64
}

// New builds a sandbox from its options: it compiles the world, seeds the
// ready-made external payments into the provider and subscribes the
// connector to it.
func New(opts Options) (*Server, error) {
	if opts.Payments == nil {
		return nil, errors.New("sandbox: Options.Payments is required")
	}
	s := &Server{
		token:           opts.Token,
		clock:           opts.Clock,
		log:             opts.Logger,
		pay:             opts.Payments,
		completionDelay: opts.CompletionDelay,
		faults:          newFaults(),
		calls:           map[string]*atomic.Int64{},
		cinemas:         map[string]*cinema{},
		films:           map[string]Film{},
		sessions:        map[int]*session{},
		orders:          map[string]*order{},
		finished:        map[string]bool{},
		bookings:        map[string]*booking{},
		bookingNums:     map[bookingKey]*booking{},
		payOrders:       map[string]*order{},
		giftCards:       map[string]*giftCard{},
		loyalty:         map[string]*loyaltyAccount{},
		nextBooking:     400000,
		nextTrans:       900000,
		timers:          map[*time.Timer]struct{}{},
	}
	if s.token == "" {
		s.token = DefaultToken
	}
	if s.clock == nil {
		s.clock = realClock{}
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if s.completionDelay == 0 {
		s.completionDelay = defaultCompletionDelay
	}
	for _, op := range Operations {
		s.calls[op] = new(atomic.Int64)
	}
	s.editsStay.Store(opts.EditsStayInSession)
	w := opts.World
	if w == nil {
		w = DefaultWorld(s.clock.Now())
	}
	if err := s.load(w); err != nil {
		return nil, fmt.Errorf("sandbox: load world: %w", err)
	}
	s.pay.Subscribe(s.onPayment)
	s.handler = s.routes()
	return s, nil
}

// Handler serves the ticketing API at the root and the admin API under
// /sandbox-admin/. It does not serve the payment provider.
func (s *Server) Handler() http.Handler { return s.handler }

// Faults is the fault injection control, the same as the admin endpoint.
func (s *Server) Faults() *Faults { return s.faults }

// SetEditsStayInSession switches, on a running sandbox, whether AddTickets in
// an edit refuses tickets for a session the edited booking does not hold (a
// deployment without showtime changes): Result 4, ExtendedResultCode 43 in an
// HTTP 200 ticketing envelope. Options.EditsStayInSession is the starting value.
func (s *Server) SetEditsStayInSession(on bool) {
	s.editsStay.Store(on)
	s.log.Info("edits stay in session", "on", on)
}

// EditsStayInSession reports the current setting of SetEditsStayInSession.
func (s *Server) EditsStayInSession() bool { return s.editsStay.Load() }

// Calls is the number of calls made to an operation since start.
func (s *Server) Calls(operation string) int64 {
	if c, ok := s.calls[operation]; ok {
		return c.Load()
	}
	return 0
}

// Close stops the connector: pending completions are dropped.
func (s *Server) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for t := range s.timers {
		t.Stop()
	}
	clear(s.timers)
}

// load compiles the world into the runtime state.
func (s *Server) load(w *World) error {
	for _, f := range w.Films {
		if _, dup := s.films[f.ID]; dup {
			return fmt.Errorf("film %s defined twice", f.ID)
		}
		s.films[f.ID] = f
		s.filmList = append(s.filmList, f)
	}
	for _, g := range w.GiftCards {
		s.giftCards[g.Number] = &giftCard{GiftCard: g}
	}
	for _, m := range w.LoyaltyMembers {
		s.loyalty[m.CardNumber] = &loyaltyAccount{LoyaltyMember: m}
	}
	for _, wc := range w.Cinemas {
		c, err := s.loadCinema(wc)
		if err != nil {
			return fmt.Errorf("cinema %s: %w", wc.ID, err)
		}
		s.cinemas[c.ID] = c
		s.cinemaList = append(s.cinemaList, c)
	}
	for _, wc := range w.Cinemas {
		for _, wb := range wc.Bookings {
			if err := s.loadBooking(s.cinemas[wc.ID], wb); err != nil {
				return fmt.Errorf("cinema %s booking %d: %w", wc.ID, wb.Number, err)
			}
		}
	}
	return nil
}

func (s *Server) loadCinema(wc Cinema) (*cinema, error) {
	if wc.ID == "" || wc.CurrencyCode == "" {
		return nil, errors.New("id and currencyCode are required")
	}
	if _, dup := s.cinemas[wc.ID]; dup {
		return nil, errors.New("defined twice")
	}
	loc, err := time.LoadLocation(wc.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("time zone %q: %w", wc.TimeZone, err)
	}
	c := &cinema{Cinema: wc, loc: loc, cats: map[string]*AreaCategory{}, screens: map[int]*screenDef{},
		ticketTypes: map[string]*TicketType{}, concessions: map[string]*Concession{}}
	// Copy the lists the runtime points into so the caller's World is never
	// changed by the sandbox.
	c.Bookings, c.Sessions = nil, nil
	wc.AreaCategories = append([]AreaCategory(nil), wc.AreaCategories...)
	wc.TicketTypes = append([]TicketType(nil), wc.TicketTypes...)
	wc.Concessions = append([]Concession(nil), wc.Concessions...)
	c.AreaCategories, c.TicketTypes, c.Concessions = wc.AreaCategories, wc.TicketTypes, wc.Concessions
	for i := range wc.AreaCategories {
		c.cats[wc.AreaCategories[i].Code] = &wc.AreaCategories[i]
	}
	for _, sc := range wc.Screens {
		def, err := compileScreen(sc, c.cats)
		if err != nil {
			return nil, err
		}
		c.screens[sc.Number] = def
	}
	for i := range wc.TicketTypes {
		tt := &wc.TicketTypes[i]
		if _, ok := c.cats[tt.AreaCategoryCode]; !ok {
			return nil, fmt.Errorf("ticket type %s: unknown area category %q", tt.Code, tt.AreaCategoryCode)
		}
		if tt.PackageSize < 1 {
			tt.PackageSize = 1
		}
		c.ticketTypes[tt.Code] = tt
	}
	for i := range wc.Concessions {
		c.concessions[wc.Concessions[i].ItemID] = &wc.Concessions[i]
	}
	c.fees = append([]FeeRule(nil), wc.FeeRules...)
	sort.SliceStable(c.fees, func(i, j int) bool { return c.fees[i].ValidFrom.Before(c.fees[j].ValidFrom) })
	if len(c.fees) == 0 {
		c.fees = []FeeRule{{}}
	}
	for _, ws := range wc.Sessions {
		film, ok := s.films[ws.FilmID]
		if !ok {
			return nil, fmt.Errorf("session %d: unknown film %q", ws.ID, ws.FilmID)
		}
		sc, ok := c.screens[ws.ScreenNumber]
		if !ok {
			return nil, fmt.Errorf("session %d: unknown screen %d", ws.ID, ws.ScreenNumber)
		}
		if _, dup := s.sessions[ws.ID]; dup {
			return nil, fmt.Errorf("session %d defined twice (session ids are unique across cinemas)", ws.ID)
		}
		if ws.Showtime.IsZero() {
			return nil, fmt.Errorf("session %d has no showtime", ws.ID)
		}
		ss := &session{id: ws.ID, cinema: c, film: film, screen: sc, showtime: ws.Showtime, attributes: append([]string(nil), ws.Attributes...),
			adjust: ws.PriceAdjustInCents, owners: make([]owner, len(sc.seats))}
		s.sessions[ws.ID] = ss
		c.sessions = append(c.sessions, ss)
	}
	sort.SliceStable(c.sessions, func(i, j int) bool { return c.sessions[i].showtime.Before(c.sessions[j].showtime) })
	return c, nil
}

// loadBooking adds a booking of the world: its tickets on their seats, its concessions and,
// when paid, the payments that add up to its total.
func (s *Server) loadBooking(c *cinema, wb Booking) error {
	ss, key, err := s.checkWorldBooking(c, wb)
	if err != nil {
		return err
	}
	s.nextTrans++
	b := &booking{number: wb.Number, id: wb.ID, cinema: c, transID: s.nextTrans, customerName: wb.CustomerName,
		customerEmail: wb.CustomerEmail, created: wb.CreatedAt, paid: wb.Paid, inSeatDelivery: wb.InSeatDelivery}
	if err := b.loadTickets(ss, wb.Tickets, c.feeAt(wb.CreatedAt)); err != nil {
		return err
	}
	if err := b.loadConcessions(c, wb.Concessions); err != nil {
		return err
	}
	if wb.Paid {
		if err := s.loadPayments(b, wb); err != nil {
			return err
		}
	}
	s.bookings[b.id] = b
	s.bookingNums[key] = b
	return nil
}

// checkWorldBooking finds the session of a world booking and checks its id and number are
// there and its own.
func (s *Server) checkWorldBooking(c *cinema, wb Booking) (*session, bookingKey, error) {
	ss, ok := s.sessions[wb.SessionID]
	if !ok || ss.cinema != c {
		return nil, bookingKey{}, fmt.Errorf("unknown session %d", wb.SessionID)
	}
	if wb.ID == "" || wb.Number <= 0 {
		return nil, bookingKey{}, errors.New("number and id are required")
	}
	if _, dup := s.bookings[wb.ID]; dup {
		return nil, bookingKey{}, fmt.Errorf("booking id %s used twice", wb.ID)
	}
	key := bookingKey{c.ID, wb.Number}
	if _, dup := s.bookingNums[key]; dup {
		return nil, bookingKey{}, errors.New("booking number used twice")
	}
	return ss, key, nil
}

// loadTickets books the world booking's tickets on their seats; a package takes one place
// per seat, numbered as one package.
func (b *booking) loadTickets(ss *session, tickets []BookingTicket, rule FeeRule) error {
	pkg := 0
	for _, wt := range tickets {
		tt, ok := b.cinema.ticketTypes[wt.TicketTypeCode]
		if !ok {
			return fmt.Errorf("unknown ticket type %q", wt.TicketTypeCode)
		}
		if len(wt.Seats) != tt.PackageSize {
			return fmt.Errorf("ticket type %s needs %d seat(s), got %d", tt.Code, tt.PackageSize, len(wt.Seats))
		}
		group := 0
		if tt.PackageSize > 1 {
			pkg++
			group = pkg
		}
		prices, taxes := ss.seatPrices(tt)
		for i, label := range wt.Seats {
			idx, err := worldSeat(ss, tt, label)
			if err != nil {
				return err
			}
			b.tickets = append(b.tickets, &bookedTicket{seq: len(b.tickets) + 1, sess: ss, tt: tt, seat: idx, price: prices[i], tax: taxes[i],
				fee: rule.PerTicketInCents, feeTax: taxIncluded(rule.PerTicketInCents, rule.TaxRatePercent), pkg: group})
			ss.setOwner(idx, owner{booking: b})
		}
	}
	if len(b.tickets) == 0 {
		return errors.New("a booking needs tickets")
	}
	return nil
}

// worldSeat is the place a world booking's ticket of type tt names: a sellable one of the
// ticket's area category that nobody has yet.
func worldSeat(ss *session, tt *TicketType, label string) (int, error) {
	idx, ok := ss.screen.byLabel[label]
	if !ok {
		return 0, fmt.Errorf("unknown seat %q", label)
	}
	sd := &ss.screen.seats[idx]
	if !sd.sellable() {
		return 0, fmt.Errorf("seat %s cannot be sold", label)
	}
	if sd.area.category.Code != tt.AreaCategoryCode {
		return 0, fmt.Errorf("seat %s is not in area category %s of ticket type %s", label, tt.AreaCategoryCode, tt.Code)
	}
	if ss.owners[idx] != (owner{}) {
		return 0, fmt.Errorf("seat %s is booked twice", label)
	}
	return idx, nil
}

// loadConcessions adds the world booking's concessions.
func (b *booking) loadConcessions(c *cinema, concessions []BookingConcession) error {
	for _, wc := range concessions {
		con, ok := c.concessions[wc.ItemID]
		if !ok || wc.Quantity < 1 {
			return fmt.Errorf("unknown concession %q or quantity < 1", wc.ItemID)
		}
		b.concessions = append(b.concessions, bookedConcession{c: con, qty: wc.Quantity})
	}
	return nil
}

// loadPayments records the payments of a paid world booking; an external one is seeded at
// the payment provider as paid, an internal one without a reference gets one.
func (s *Server) loadPayments(b *booking, wb Booking) error {
	pays, err := worldPayments(b, wb)
	if err != nil {
		return err
	}
	for i, p := range pays {
		rec := paymentRecord{amount: p.AmountInCents, ref: p.ProviderReference, tender: p.TenderCategory, masked: p.CardNumberMasked, cardType: p.CardType, external: p.External}
		if rec.tender == "" {
			rec.tender = defaultTender
		}
		if p.External {
			if rec.ref == "" {
				return errors.New("an external payment needs a providerReference")
			}
			s.pay.SeedPaid(rec.ref, rec.amount, b.cinema.CurrencyCode, p.CardNumberMasked, p.CardType)
		} else if rec.ref == "" {
			rec.ref = fmt.Sprintf("INT%d", b.transID)
			if i > 0 {
				rec.ref = fmt.Sprintf("INT%d-%d", b.transID, i+1)
			}
		}
		b.payments = append(b.payments, rec)
	}
	return nil
}

// worldPayments are the payments of a paid world booking (one, by default of its total, or
// several), each positive, adding up to its total.
func worldPayments(b *booking, wb Booking) ([]BookingPayment, error) {
	total, _ := b.totals()
	pays := wb.Payments
	switch {
	case wb.Payment != nil && len(pays) > 0:
		return nil, errors.New("give a paid booking payment or payments, not both")
	case wb.Payment != nil:
		p := *wb.Payment
		if p.AmountInCents == 0 {
			p.AmountInCents = total
		}
		pays = []BookingPayment{p}
	case len(pays) == 0:
		return nil, errors.New("a paid booking needs a payment")
	}
	var sum int64
	for i, p := range pays {
		if p.AmountInCents <= 0 {
			return nil, fmt.Errorf("payment %d needs a positive amountInCents", i+1)
		}
		sum += p.AmountInCents
	}
	if sum != total {
		return nil, fmt.Errorf("the payments add up to %d cents, the booking's total is %d", sum, total)
	}
	return pays, nil
}

// splitPrice divides a package price over its seats; the first seat takes
// the remainder so the parts add up exactly.
func splitPrice(total int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = total / int64(n)
	}
	out[0] += total - out[0]*int64(n)
	return out
}

// sweep expires every live order whose time is up. Expiry is lazy: every
// request sweeps first, so a test that advances its clock sees released
// seats on its next call. s.mu must be held.
func (s *Server) sweep(now time.Time) {
	if now.Before(s.nextExpiry) {
		return
	}
	next := time.Time{}
	for _, o := range s.orders {
		if o.state != orderActive {
			continue
		}
		if !now.Before(o.expiry) {
			s.expire(o)
			continue
		}
		if next.IsZero() || o.expiry.Before(next) {
			next = o.expiry
		}
	}
	if next.IsZero() {
		next = now.Add(orderLifetime)
	}
	s.nextExpiry = next
}

// noteExpiry keeps nextExpiry a lower bound of every live order's expiry.
func (s *Server) noteExpiry(t time.Time) {
	if t.Before(s.nextExpiry) {
		s.nextExpiry = t
	}
}
