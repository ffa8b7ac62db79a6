package sandbox

import (
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"time"
)

type orderState int

const (
	orderActive          orderState = iota // building, or ready for payment
	orderAwaitingPayment                   // redirect payment started, not yet decided
	orderCompleted                         // booking made
	orderExpired                           // expiry time reached: seats released
)

// bookingStatus values of edit order items (wire-profile "Enumerations").
const (
	statusBooked  = 0
	statusAdded   = 1
	statusRemoved = 2
)

// order is a basket of tickets addressed by its userSessionId. An edit
// order has edit set to the booking it edits.
type order struct {
	id          string
	cinema      *cinema
	history     int64
	created     time.Time
	updated     time.Time
	expiry      time.Time
	state       orderState
	tickets     []*ticket
	nextTicket  int
	nextPkg     int
	feeOverride *int64
	applied     []appliedPayment
	edit        *booking
	touched     map[*session]bool // sessions where the order may hold seats
	web         *webPayment
	customer    customerInfo
	print       printSettings
	frozen      *orderValues // values at completion
	done        *booking     // booking made by completion
	streams     []printStream
}

type customerInfo struct {
	name, email, phone string
}

type printSettings struct {
	generate   bool
	streamType string
}

type ticket struct {
	id     int
	sess   *session
	tt     *TicketType
	seat   int
	pkg    int
	status int
	price  int64
	tax    int64
	// For booked tickets of an edit: what the booking holds.
	seq        int
	origSeat   int
	origFee    int64
	origFeeTax int64
}

type appliedPayment struct {
	kind   string // "GiftCard" or "Loyalty"
	card   string
	amount int64
	status string // P until the order completes, then Y
}

func maskCard(n string) string {
	if len(n) <= 4 {
		return n
	}
	b := make([]byte, len(n))
	for i := range b {
		b[i] = '*'
	}
	copy(b[len(n)-4:], n[len(n)-4:])
	return string(b)
}

// feeNow is the booking fee per ticket an order pays now: the override if
// one was given, otherwise the cinema's current rule.
func (o *order) feeNow(now time.Time) (fee, tax int64) {
	rule := o.cinema.feeAt(now)
	fee = rule.PerTicketInCents
	if o.feeOverride != nil {
		fee = *o.feeOverride
	}
	return fee, taxIncluded(fee, rule.TaxRatePercent)
}

type feeItem struct {
	fee, tax int64
	status   int
}

// orderValues are the money fields of an order. For an edit they are the
// difference to the original booking.
type orderValues struct {
	total, tax, fees, feeTax int64
	items                    []feeItem
	count                    int
	applied                  int64
}

func (v orderValues) toPay() int64 {
	if v.total-v.applied < 0 {
		return 0
	}
	return v.total - v.applied
}

// values computes the order's money. Booked tickets whose fee changed under
// the current rule show the old fee as removed and the new one as added, so
// the fee items add up to bookingFeeTotalValueInCents.
func (o *order) values(now time.Time) orderValues {
	if o.frozen != nil {
		return *o.frozen
	}
	fee, feeTax := o.feeNow(now)
	var v orderValues
	for _, t := range o.tickets {
		switch t.status {
		case statusAdded:
			v.total += t.price
			v.tax += t.tax
			v.count++
			v.items = append(v.items, feeItem{fee, feeTax, statusAdded})
		case statusBooked:
			v.count++
			if t.origFee == fee && t.origFeeTax == feeTax {
				v.items = append(v.items, feeItem{fee, feeTax, statusBooked})
			} else {
				v.items = append(v.items, feeItem{t.origFee, t.origFeeTax, statusRemoved}, feeItem{fee, feeTax, statusAdded})
			}
		case statusRemoved:
			v.total -= t.price
			v.tax -= t.tax
			v.items = append(v.items, feeItem{t.origFee, t.origFeeTax, statusRemoved})
		}
	}
	for _, it := range v.items {
		switch it.status {
		case statusAdded:
			v.fees += it.fee
			v.feeTax += it.tax
		case statusRemoved:
			v.fees -= it.fee
			v.feeTax -= it.tax
		}
	}
	v.total += v.fees
	v.tax += v.feeTax
	for _, a := range o.applied {
		v.applied += a.amount
	}
	return v
}

func (o *order) liveTickets(ss *session) []*ticket {
	var out []*ticket
	for _, t := range o.tickets {
		if t.sess == ss && t.status != statusRemoved {
			out = append(out, t)
		}
	}
	return out
}

// canTake reports whether the order may put a ticket on a place: it is
// sellable and free, already the order's, or (in an edit) the edited
// booking's own.
func (o *order) canTake(ss *session, idx int) bool {
	if !ss.screen.seats[idx].sellable() {
		return false
	}
	w := ss.owners[idx]
	return w == (owner{}) || w.order == o || (o.edit != nil && w.booking == o.edit)
}

// syncHolds makes the order hold exactly the free places its live tickets
// sit on in a session. s.mu must be held.
func (o *order) syncHolds(ss *session) {
	used := map[int]bool{}
	for _, t := range o.liveTickets(ss) {
		if t.seat >= 0 {
			used[t.seat] = true
		}
	}
	for idx, w := range ss.owners {
		if w.order == o && !used[idx] {
			ss.setOwner(idx, owner{})
		}
	}
	for idx := range used {
		if ss.owners[idx] == (owner{}) {
			ss.setOwner(idx, owner{order: o})
		}
	}
	if o.touched == nil {
		o.touched = map[*session]bool{}
	}
	o.touched[ss] = true
}

// release gives back everything a dying order holds: seats, gift card and
// loyalty reservations, the booking's edit slot. s.mu must be held.
func (s *Server) release(o *order) {
	for ss := range o.touched {
		for idx, w := range ss.owners {
			if w.order == o {
				ss.setOwner(idx, owner{})
			}
		}
	}
	s.unreserve(o)
	if o.edit != nil && o.edit.edit == o {
		o.edit.edit = nil
	}
	if o.web != nil {
		delete(s.payOrders, o.web.paymentID)
	}
}

// expire is what the expiry time does: the same as a cancel, except that
// later calls answer "expired" instead of "not found".
func (s *Server) expire(o *order) {
	s.release(o)
	o.state = orderExpired
	s.log.Info("order expired", "user_session_id", o.id, "edit", o.edit != nil)
}

// lookup finds an order for a call. s.mu must be held.
func (s *Server) lookup(id string, now time.Time) (*order, *apiError) {
	if !validSessionID(id) {
		return nil, invalid("UserSessionId must be 32 lowercase hex characters")
	}
	s.sweep(now)
	o, ok := s.orders[id]
	if !ok || s.finished[id] {
		return nil, errOrderNotFound
	}
	if o.state == orderExpired {
		return nil, errOrderExpired
	}
	return o, nil
}

// lookupActive finds an order that can still be changed.
func (s *Server) lookupActive(id string, now time.Time) (*order, *apiError) {
	o, e := s.lookup(id, now)
	if e != nil {
		return nil, e
	}
	if o.state != orderActive {
		return nil, errCompleted
	}
	return o, nil
}

type seatRequest struct {
	AreaCategoryCode string  `json:"AreaCategoryCode"`
	AreaNumber       flexInt `json:"AreaNumber"`
	RowIndex         flexInt `json:"RowIndex"`
	ColumnIndex      flexInt `json:"ColumnIndex"`
}

// resolveSeats maps requested positions to places, refusing unknown places,
// wrong category codes and duplicates.
func resolveSeats(ss *session, req []seatRequest) ([]int, *apiError) {
	out := make([]int, 0, len(req))
	seen := map[int]bool{}
	for _, sr := range req {
		idx, ok := ss.screen.byPos[seatPos{int(sr.AreaNumber), int(sr.RowIndex), int(sr.ColumnIndex)}]
		if !ok {
			return nil, invalid("no seat at area %d row %d column %d", sr.AreaNumber, sr.RowIndex, sr.ColumnIndex)
		}
		d := &ss.screen.seats[idx]
		if sr.AreaCategoryCode != "" && sr.AreaCategoryCode != d.area.category.Code {
			return nil, invalid("seat %s%s is in area category %s, not %s", d.rowName, d.label, d.area.category.Code, sr.AreaCategoryCode)
		}
		if seen[idx] {
			return nil, invalid("seat %s%s selected twice", d.rowName, d.label)
		}
		seen[idx] = true
		out = append(out, idx)
	}
	return out, nil
}

// errSeatUnsellable refuses a place that cannot be sold at all (house,
// broken, placeholder).
func errSeatUnsellable(d *seatDef) *apiError {
	return &apiError{status: http.StatusConflict, result: resSeatsUnavailable, reason: "seat_unavailable", msg: "seat " + d.rowName + d.label + " is not available"}
}

// seatTakenText is what the real service says about a seat someone else
// has: Result 1 in an HTTP 200 body (wire-profile "Seat refusals").
const seatTakenText = "An unexpected error has occurred"

// errSeatTaken answers a request for a place another order or booking has,
// the way the real service does; the log says which seat it was.
func (s *Server) errSeatTaken(ss *session, d *seatDef) *apiError {
	s.log.Info("seat taken by someone else", "session", ss.id, "seat", d.rowName+d.label)
	return &apiError{status: http.StatusConflict, result: resUnexpected, reason: "seat_unavailable", msg: seatTakenText}
}

// allocate picks n free normal places of a category for tickets added
// without seats: the block nearest the middle of a row a little behind the
// middle of the area, else the best single places. nil when not enough.
func allocate(ss *session, cat string, n int, skip map[int]bool) []int {
	al := allocation{ss: ss, n: n, skip: skip}
	for _, a := range ss.screen.areas {
		if a.category.Code != cat {
			continue
		}
		pref := (len(a.rows) - 1) * 6 / 10
		for ri, row := range a.rows {
			al.scanRow(a, row, abs(ri-pref))
		}
	}
	if al.best != nil {
		return al.best.seats
	}
	if len(al.singles) < n {
		return nil
	}
	sort.SliceStable(al.singles, func(i, j int) bool { return al.singles[i].score < al.singles[j].score })
	out := make([]int, n)
	for i := range out {
		out[i] = al.singles[i].seats[0]
	}
	return out
}

// seatCandidate is places allocate may give, scored: lower is better.
type seatCandidate struct {
	seats []int
	score int
}

// allocation is what allocate has found so far: the best block of n normal places side by
// side (the first of equal scores), and every free place on its own for when no block fits.
type allocation struct {
	ss      *session
	n       int
	skip    map[int]bool
	best    *seatCandidate
	singles []seatCandidate
}

// scanRow offers the free places of a row (rowScore: its distance from the preferred row),
// cut into runs of adjacent normal places.
func (al *allocation) scanRow(a *areaDef, row rowDef, rowScore int) {
	var run []int
	prevCol := -2
	for _, idx := range row.seats {
		d := &al.ss.screen.seats[idx]
		free := al.ss.owners[idx] == (owner{}) && d.kind == seatEmpty && !al.skip[idx]
		if free {
			al.singles = append(al.singles, seatCandidate{seats: []int{idx}, score: rowScore*1000 + abs(2*d.pos.col-(a.cols-1))})
		}
		if !free || d.style != styleNormal || d.pos.col != prevCol+1 {
			al.offerRun(a, run, rowScore)
			run = run[:0]
		}
		if free && d.style == styleNormal {
			run = append(run, idx)
		}
		prevCol = d.pos.col
	}
	al.offerRun(a, run, rowScore)
}

// offerRun offers every block of n places within a run of adjacent free normal places,
// scored by how far its middle is from the middle of the area.
func (al *allocation) offerRun(a *areaDef, run []int, rowScore int) {
	for st := 0; st+al.n <= len(run); st++ {
		first, last := al.ss.screen.seats[run[st]].pos.col, al.ss.screen.seats[run[st+al.n-1]].pos.col
		c := seatCandidate{seats: append([]int(nil), run[st:st+al.n]...), score: rowScore*1000 + abs(first+last-(a.cols-1))}
		if al.best == nil || c.score < al.best.score {
			al.best = &c
		}
	}
}

// abs is the distance of x from zero.
func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

type addTicketsRequest struct {
	UserSessionID string     `json:"UserSessionId"`
	CinemaID      string     `json:"CinemaId"`
	SessionID     flexString `json:"SessionId"`
	TicketTypes   []struct {
		TicketTypeCode string `json:"TicketTypeCode"`
		Qty            *int   `json:"Qty"`
		PriceInCents   *int64 `json:"PriceInCents"`
		VoucherBarcode string `json:"VoucherBarcode"`
	} `json:"TicketTypes"`
	BookingMode        *int          `json:"BookingMode"`
	ReturnOrder        bool          `json:"ReturnOrder"`
	SelectedSeats      []seatRequest `json:"SelectedSeats"`
	BookingFeeOverride *struct {
		FeeInCents int64 `json:"FeeInCents"`
	} `json:"BookingFeeOverride"`
}

// orderEnvelope is the ticketing envelope with the order (contract 2.3).
type orderEnvelope struct {
	ExtendedResultCode int        `json:"ExtendedResultCode"`
	Order              *orderJSON `json:"Order"`
	Result             int        `json:"Result"`
	ErrorDescription   *string    `json:"ErrorDescription"`
}

func (s *Server) orderReply(o *order, now time.Time, withOrder bool) reply {
	env := orderEnvelope{}
	if withOrder {
		j := s.orderJSON(o, now)
		env.Order = &j
	}
	return okReply(env)
}

func (s *Server) handleAddTickets(r *http.Request) reply {
	var req addTicketsRequest
	if e := decodeBody(r, &req, false); e != nil {
		return errReply(famTicketing, e)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	o, e := s.addTickets(&req, now)
	if e != nil {
		return errReply(famTicketing, e)
	}
	return s.orderReply(o, now, req.ReturnOrder)
}

// addTickets adds the requested tickets to the order (made on the first call), seated on the
// places asked for or the best free ones. Nothing changes until all of the request is valid,
// and the checks run in the order the real service answers them.
func (s *Server) addTickets(req *addTicketsRequest, now time.Time) (*order, *apiError) {
	if !validSessionID(req.UserSessionID) {
		return nil, invalid("UserSessionId must be a new or existing 32 lowercase hex character id")
	}
	s.sweep(now)
	o, exists, c, e := s.orderToAddTo(req)
	if e != nil {
		return nil, e
	}
	isEdit := exists && o.edit != nil
	if e := checkAddMode(req, isEdit); e != nil {
		return nil, e
	}
	ss, e := s.sessionToAddTo(req, c, o, isEdit, now)
	if e != nil {
		return nil, e
	}
	lines, e := ticketLines(req, c, ss, isEdit)
	if e != nil {
		return nil, e
	}
	if req.BookingFeeOverride != nil && req.BookingFeeOverride.FeeInCents < 0 {
		return nil, invalid("BookingFeeOverride.FeeInCents must not be negative")
	}
	if len(req.SelectedSeats) > 0 {
		e = s.placeOnSelected(ss, req.SelectedSeats, lines)
	} else {
		e = placeOnBest(ss, lines)
	}
	if e != nil {
		return nil, e
	}
	if !exists {
		o = s.newOrder(req.UserSessionID, c, now)
	}
	o.addLines(ss, lines)
	if req.BookingFeeOverride != nil {
		fee := req.BookingFeeOverride.FeeInCents
		o.feeOverride = &fee
	}
	o.syncHolds(ss)
	o.updated = now
	return o, nil
}

// orderToAddTo finds the order tickets are added to (exists=false: the call makes it) and
// the cinema they are for.
func (s *Server) orderToAddTo(req *addTicketsRequest) (o *order, exists bool, c *cinema, e *apiError) {
	o, exists = s.orders[req.UserSessionID]
	if s.finished[req.UserSessionID] {
		return nil, false, nil, errOrderNotFound
	}
	c = s.cinemas[req.CinemaID]
	if exists {
		if o.state == orderExpired {
			return nil, false, nil, errOrderExpired
		}
		if o.state != orderActive {
			return nil, false, nil, errCompleted
		}
		if req.CinemaID != "" && req.CinemaID != o.cinema.ID {
			return nil, false, nil, invalid("order %s belongs to cinema %s", o.id, o.cinema.ID)
		}
		c = o.cinema
	}
	if c == nil {
		return nil, false, nil, invalid("unknown cinema %q", req.CinemaID)
	}
	return o, exists, c, nil
}

// checkAddMode refuses seats chosen while the order is in edit (SetSelectedSeats does that)
// and a booking mode other than sale or reservation.
func checkAddMode(req *addTicketsRequest, isEdit bool) *apiError {
	if isEdit && len(req.SelectedSeats) > 0 {
		e := *errNotInEdit
		e.msg = "SelectedSeats must not be supplied to AddTickets while the order is in edit state; use SetSelectedSeats"
		return &e
	}
	if req.BookingMode != nil && *req.BookingMode != 0 && *req.BookingMode != 1 {
		return invalid("BookingMode must be 0 (sale) or 1 (reservation)")
	}
	return nil
}

// sessionToAddTo is the session of the cinema the tickets are for; an edit may add only to
// a session it may still change.
func (s *Server) sessionToAddTo(req *addTicketsRequest, c *cinema, o *order, isEdit bool, now time.Time) (*session, *apiError) {
	sid, err := strconv.Atoi(string(req.SessionID))
	ss, ok := s.sessions[sid]
	if err != nil || !ok || ss.cinema != c {
		return nil, invalid("session %q not found at cinema %s", req.SessionID, c.ID)
	}
	if isEdit {
		if e := s.editSessionRefusal(o.edit, ss, now); e != nil {
			return nil, e
		}
	}
	return ss, nil
}

// ticketLine is one ticket AddTickets is about to add: its type, its package (0: none), its
// price and the place it gets (-1 until placed).
type ticketLine struct {
	tt         *TicketType
	pkg        int
	price, tax int64
	seat       int
}

// ticketLines builds the new tickets of the request, a package's places each its own line.
func ticketLines(req *addTicketsRequest, c *cinema, ss *session, isEdit bool) ([]ticketLine, *apiError) {
	if len(req.TicketTypes) == 0 {
		return nil, invalid("TicketTypes is empty")
	}
	cats := map[string]bool{}
	for _, code := range ss.screen.categoryCodes() {
		cats[code] = true
	}
	var lines []ticketLine
	pkg := 0
	for _, tr := range req.TicketTypes {
		tt, ok := c.ticketTypes[tr.TicketTypeCode]
		if !ok || !cats[tt.AreaCategoryCode] {
			return nil, invalid("ticket type %q is not sold for session %d", tr.TicketTypeCode, ss.id)
		}
		if isEdit && !simple(tt) {
			return nil, &apiError{result: resInvalidRequest, ext: extEditRefused, reason: "not_simple_ticket", msg: "only simple ticket types can be added in an edit"}
		}
		qty := 1
		if tr.Qty != nil {
			qty = *tr.Qty
		}
		if qty < 1 || qty > 20 {
			return nil, invalid("Qty must be between 1 and 20")
		}
		lines = appendTicketLines(lines, ss, tt, qty, &pkg)
	}
	if len(lines) > 40 {
		return nil, invalid("at most 40 tickets per call")
	}
	return lines, nil
}

// appendTicketLines appends qty tickets of type tt; each package takes the next package
// number (*pkg) and one line per place.
func appendTicketLines(lines []ticketLine, ss *session, tt *TicketType, qty int, pkg *int) []ticketLine {
	prices, taxes := ss.seatPrices(tt)
	for q := 0; q < qty; q++ {
		group := 0
		if tt.PackageSize > 1 {
			*pkg++
			group = *pkg
		}
		for i := 0; i < tt.PackageSize; i++ {
			lines = append(lines, ticketLine{tt: tt, pkg: group, price: prices[i], tax: taxes[i], seat: -1})
		}
	}
	return lines
}

// placeOnSelected seats the lines on the places asked for, each on the first unplaced line
// of its area category; every place must be sellable and free.
func (s *Server) placeOnSelected(ss *session, selected []seatRequest, lines []ticketLine) *apiError {
	seats, e := resolveSeats(ss, selected)
	if e != nil {
		return e
	}
	if len(seats) != len(lines) {
		return invalid("%d seats selected for %d tickets", len(seats), len(lines))
	}
	for _, idx := range seats {
		d := &ss.screen.seats[idx]
		if !d.sellable() {
			return errSeatUnsellable(d)
		}
		if ss.owners[idx] != (owner{}) {
			return s.errSeatTaken(ss, d)
		}
		i := slices.IndexFunc(lines, func(l ticketLine) bool {
			return l.seat < 0 && l.tt.AreaCategoryCode == d.area.category.Code
		})
		if i < 0 {
			return invalid("seat %s%s does not match the area category of the ticket types", d.rowName, d.label)
		}
		lines[i].seat = idx
	}
	return nil
}

// placeOnBest seats the lines on the best free places, the lines of each area category
// together (in the order the categories first appear).
func placeOnBest(ss *session, lines []ticketLine) *apiError {
	byCat := map[string][]int{}
	var catOrder []string
	for i := range lines {
		code := lines[i].tt.AreaCategoryCode
		if _, ok := byCat[code]; !ok {
			catOrder = append(catOrder, code)
		}
		byCat[code] = append(byCat[code], i)
	}
	skip := map[int]bool{}
	for _, code := range catOrder {
		got := allocate(ss, code, len(byCat[code]), skip)
		if got == nil {
			return &apiError{status: http.StatusConflict, result: resSeatsUnavailable, reason: "seat_unavailable", msg: "not enough free seats in area category " + code}
		}
		for k, i := range byCat[code] {
			lines[i].seat = got[k]
			skip[got[k]] = true
		}
	}
	return nil
}

// newOrder starts the order a first AddTickets makes.
func (s *Server) newOrder(id string, c *cinema, now time.Time) *order {
	s.nextHistory++
	o := &order{id: id, cinema: c, history: s.nextHistory, created: now, expiry: now.Add(orderLifetime), state: orderActive}
	s.orders[o.id] = o
	s.noteExpiry(o.expiry)
	s.log.Info("order created", "user_session_id", o.id, "cinema", c.ID)
	return o
}

// addLines adds the placed lines as tickets of the order, numbering its tickets and packages
// on from those it has.
func (o *order) addLines(ss *session, lines []ticketLine) {
	groups := map[int]int{}
	for _, l := range lines {
		o.nextTicket++
		g := 0
		if l.pkg != 0 {
			if groups[l.pkg] == 0 {
				o.nextPkg++
				groups[l.pkg] = o.nextPkg
			}
			g = groups[l.pkg]
		}
		o.tickets = append(o.tickets, &ticket{id: o.nextTicket, sess: ss, tt: l.tt, seat: l.seat, pkg: g, status: statusAdded, price: l.price, tax: l.tax, origSeat: -1})
	}
}

// removeTicketsRequest is the SOAP form of RemoveTickets. PackageTicketIds
// is accepted and ignored: Tickets names what goes, and removing one ticket
// of a package removes the whole package anyway.
type removeTicketsRequest struct {
	UserSessionID  string `json:"UserSessionId"`
	TicketRemovals []struct {
		SessionID        flexString      `json:"SessionId"`
		Tickets          []flexString    `json:"Tickets"`
		PackageTicketIDs json.RawMessage `json:"PackageTicketIds"`
	} `json:"TicketRemovals"`
	ReturnOrder bool `json:"ReturnOrder"`
}

func (s *Server) handleRemoveTickets(r *http.Request) reply {
	return onActiveOrder(s, r, func(req *removeTicketsRequest, o *order, now time.Time) reply {
		var picked []*ticket
		for _, tr := range req.TicketRemovals {
			for _, raw := range tr.Tickets {
				id, err := strconv.Atoi(string(raw))
				var found *ticket
				for _, t := range o.tickets {
					if err == nil && t.id == id && (tr.SessionID == "" || string(tr.SessionID) == strconv.Itoa(t.sess.id)) {
						found = t
					}
				}
				if found == nil {
					return errReply(famTicketing, invalid("ticket %q is not in the order", raw))
				}
				picked = append(picked, found)
			}
		}
		if len(picked) == 0 {
			return errReply(famTicketing, invalid("TicketRemovals names no tickets"))
		}
		// A package goes as a whole: removing one of its tickets removes all.
		drop := map[*ticket]bool{}
		for _, t := range picked {
			drop[t] = true
			if t.pkg != 0 {
				for _, u := range o.tickets {
					if u.pkg == t.pkg {
						drop[u] = true
					}
				}
			}
		}
		kept := o.tickets[:0]
		sessions := map[*session]bool{}
		for _, t := range o.tickets {
			sessions[t.sess] = true
			switch {
			case !drop[t]:
				kept = append(kept, t)
			case t.status == statusAdded:
				// an added ticket simply leaves the order
			default:
				// a booked ticket of an edit stays, marked removed
				t.status = statusRemoved
				t.seat = t.origSeat
				kept = append(kept, t)
			}
		}
		o.tickets = kept
		for ss := range sessions {
			o.syncHolds(ss)
		}
		o.updated = now
		return s.orderReply(o, now, req.ReturnOrder)
	})
}

type setSeatsRequest struct {
	UserSessionID string        `json:"UserSessionId"`
	CinemaID      string        `json:"CinemaId"`
	SessionID     flexString    `json:"SessionId"`
	SelectedSeats []seatRequest `json:"SelectedSeats"`
	ReturnOrder   bool          `json:"ReturnOrder"`
}

// handleSetSelectedSeats replaces the seats of all the order's tickets in a
// session. Tickets already on one of the new seats keep it; the others take
// the remaining seats of their area category in the order given.
func (s *Server) handleSetSelectedSeats(r *http.Request) reply {
	return onActiveOrder(s, r, func(req *setSeatsRequest, o *order, now time.Time) reply {
		sid, _ := strconv.Atoi(string(req.SessionID))
		ss, ok := s.sessions[sid]
		if !ok || ss.cinema != o.cinema {
			return errReply(famTicketing, invalid("session %q not found at cinema %s", req.SessionID, o.cinema.ID))
		}
		tickets := o.liveTickets(ss)
		if len(tickets) == 0 {
			return errReply(famTicketing, invalid("the order has no tickets for session %d", ss.id))
		}
		seats, e := s.seatsToSet(o, ss, req.SelectedSeats, len(tickets))
		if e != nil {
			return errReply(famTicketing, e)
		}
		assign, e := assignSeats(ss, tickets, seats)
		if e != nil {
			return errReply(famTicketing, e)
		}
		for t, idx := range assign {
			t.seat = idx
		}
		o.syncHolds(ss)
		o.updated = now
		return s.orderReply(o, now, req.ReturnOrder)
	})
}

// seatsToSet resolves the places asked for: one per ticket, each sellable and free for the
// order to take.
func (s *Server) seatsToSet(o *order, ss *session, selected []seatRequest, tickets int) ([]int, *apiError) {
	seats, e := resolveSeats(ss, selected)
	if e != nil {
		return nil, e
	}
	if len(seats) != tickets {
		return nil, invalid("%d seats selected for %d tickets", len(seats), tickets)
	}
	for _, idx := range seats {
		d := &ss.screen.seats[idx]
		switch {
		case !d.sellable():
			return nil, errSeatUnsellable(d)
		case !o.canTake(ss, idx):
			return nil, s.errSeatTaken(ss, d)
		}
	}
	return seats, nil
}

// assignSeats gives each ticket a place: a ticket already on one of them keeps it, the
// others take the remaining places of their area category in the order given.
func assignSeats(ss *session, tickets []*ticket, seats []int) (map[*ticket]int, *apiError) {
	assign := map[*ticket]int{}
	used := map[int]bool{}
	wanted := map[int]bool{}
	for _, idx := range seats {
		wanted[idx] = true
	}
	for _, t := range tickets {
		if t.seat >= 0 && wanted[t.seat] && !used[t.seat] {
			assign[t], used[t.seat] = t.seat, true
		}
	}
	for _, idx := range seats {
		if used[idx] {
			continue
		}
		cat := ss.screen.seats[idx].area.category.Code
		i := slices.IndexFunc(tickets, func(t *ticket) bool {
			_, done := assign[t]
			return !done && t.tt.AreaCategoryCode == cat
		})
		if i < 0 {
			d := &ss.screen.seats[idx]
			return nil, invalid("seat %s%s does not match the area category of the order's tickets", d.rowName, d.label)
		}
		assign[tickets[i]], used[idx] = idx, true
	}
	return assign, nil
}

type userSessionRequest struct {
	UserSessionID string `json:"UserSessionId"`
}

func (s *Server) handleGetOrder(r *http.Request) reply {
	var req userSessionRequest
	if e := decodeBody(r, &req, false); e != nil {
		return errReply(famTicketing, e)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	o, e := s.lookup(req.UserSessionID, now)
	if e != nil {
		return errReply(famTicketing, e)
	}
	return s.orderReply(o, now, true)
}

func (s *Server) handleResetOrderExpiry(r *http.Request) reply {
	return onActiveOrder(s, r, func(req *userSessionRequest, o *order, now time.Time) reply {
		o.expiry = now.Add(orderLifetime)
		o.updated = now
		j := s.orderJSON(o, now)
		return okReply(struct {
			orderEnvelope
			OrderLastUpdated legacyDate `json:"OrderLastUpdated"`
		}{orderEnvelope{Order: &j}, legacyDate{now.In(o.cinema.loc)}})
	})
}

// handleCancelOrder discards a live order. An order awaiting its external payment may be
// cancelled too (the BFF gives a stuck order up this way): its seats and gift card / loyalty
// reservations are released and the connector never completes it; a payment the provider took,
// or takes afterwards on its still open page, stays taken (what happens to that money is the
// operator's policy). A completed or expired order cannot be cancelled.
func (s *Server) handleCancelOrder(r *http.Request) reply {
	var req userSessionRequest
	if e := decodeBody(r, &req, false); e != nil {
		return errReply(famTicketing, e)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o, e := s.lookup(req.UserSessionID, s.clock.Now())
	if e != nil {
		return errReply(famTicketing, e)
	}
	if o.state != orderActive && o.state != orderAwaitingPayment {
		return errReply(famTicketing, errCompleted)
	}
	if o.state == orderAwaitingPayment && o.web != nil {
		s.log.Info("order awaiting external payment cancelled", "user_session_id", o.id, "payment_id", o.web.paymentID, "payment_status", o.web.status)
	}
	s.cancel(o)
	return okReply(ticketingEnvelope{})
}

// cancel discards an order. A regular order's id may be used again; an
// edit's id is finished for good (its booking is back to original).
func (s *Server) cancel(o *order) {
	s.release(o)
	delete(s.orders, o.id)
	if o.edit != nil {
		s.finished[o.id] = true
	}
	s.log.Info("order cancelled", "user_session_id", o.id, "edit", o.edit != nil)
}

// onActiveOrder is the common start of the order operations: decode the body, take the lock,
// find the live order the request names; fn runs with the lock held.
func onActiveOrder[T any, PT interface {
	*T
	userSession() string
}](s *Server, r *http.Request, fn func(req PT, o *order, now time.Time) reply) reply {
	req := PT(new(T))
	if e := decodeBody(r, req, false); e != nil {
		return errReply(famTicketing, e)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	o, e := s.lookupActive(req.userSession(), now)
	if e != nil {
		return errReply(famTicketing, e)
	}
	return fn(req, o, now)
}

func (r *completeOrderRequest) userSession() string { return r.UserSessionID }
func (r *applyGiftCardRequest) userSession() string { return r.UserSessionID }
func (r *applyLoyaltyRequest) userSession() string  { return r.UserSessionID }
func (r *removeTicketsRequest) userSession() string { return r.UserSessionID }
func (r *setSeatsRequest) userSession() string      { return r.UserSessionID }
func (r *userSessionRequest) userSession() string   { return r.UserSessionID }
