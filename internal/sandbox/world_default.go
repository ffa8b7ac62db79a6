package sandbox

import (
	"fmt"
	"time"
)

// Area category codes of the default world.
const (
	catStandard = "0000000001"
	catPremium  = "0000000002"
)

// DefaultWorld is the built-in world: two cinemas (EUR and GBP), five films,
// sessions today and on the next three days, a 412-seat auditorium with a
// standard stalls area and a premium lounge, and one ready-made booking for
// every case the edit and swap restrictions need (listed in docs/sandbox.md).
// Times are relative to now so the world is always "current".
func DefaultWorld(now time.Time) *World {
	w := &World{
		Films: []Film{
			{ID: "HO00000001", Title: "The Last Projectionist", Rating: "12", RunTime: 118, Synopsis: "A night-shift projectionist finds a reel that shows tomorrow."},
			{ID: "HO00000002", Title: "Paper Moons", Rating: "6", RunTime: 95, Synopsis: "Two siblings build a moon for their grandmother's garden."},
			{ID: "HO00000003", Title: "Night Tram to Lisbon", Rating: "16", RunTime: 131, Synopsis: "A heist that has to be over before the last tram."},
			{ID: "HO00000004", Title: "Otters of the Elbe", Rating: "0", RunTime: 84, Synopsis: "A year with a family of otters in the river meadows."},
			{ID: "HO00000005", Title: "Glass Harbour", Rating: "12", RunTime: 109, Synopsis: "A harbour town, a lighthouse keeper and a storm that does not end."},
		},
		GiftCards: []GiftCard{
			{Number: "6000000000000001", Pin: "1234", BalanceInCents: 5000, Currency: "EUR"},
			{Number: "6000000000000002", Pin: "2222", BalanceInCents: 1000, Currency: "EUR"},
			{Number: "6000000000000003", Pin: "3333", BalanceInCents: 0, Currency: "EUR"},
			{Number: "6000000000000101", Pin: "1234", BalanceInCents: 3000, Currency: "GBP"},
		},
		LoyaltyMembers: []LoyaltyMember{
			{CardNumber: "7000000000000001", Pin: "1815", Name: "Ada Lovelace", Email: "ada@example.com", PointsBalance: 10000},
			{CardNumber: "7000000000000002", Pin: "1906", Name: "Grace Hopper", Email: "grace@example.com", PointsBalance: 300},
		},
	}
	w.Cinemas = []Cinema{berlinCinema(), londonCinema()}
	for ci := range w.Cinemas {
		w.Cinemas[ci].Sessions = defaultSessions(ci, len(w.Films))
	}
	w.Cinemas[0].Sessions = append(w.Cinemas[0].Sessions, cutoffSessions()...)
	w.Cinemas[0].Sessions = append(w.Cinemas[0].Sessions, matineeSession())
	priceCard(w.Cinemas[0].Sessions, sessionOVLate, ovLateSurcharge)
	// resolveTimes cannot fail here: the zones are embedded and every session
	// sets exactly one time form.
	if err := w.resolveTimes(now); err != nil {
		panic(fmt.Sprintf("sandbox: default world: %v", err))
	}
	return w
}

// defaultSessions gives every screen three sessions a day for today and the
// next three days. Session ids read as base + day*100 + screen*10 + slot, so
// 1113 is cinema 0001, tomorrow, screen 1, third (evening) slot.
func defaultSessions(cinemaIndex, films int) []Session {
	base := 1000 * (cinemaIndex + 1)
	todayStarts := map[int][]time.Duration{
		1: {90 * time.Minute, 4 * time.Hour, 6*time.Hour + 30*time.Minute},
		2: {2 * time.Hour, 4*time.Hour + 45*time.Minute, 7 * time.Hour},
	}
	laterAt := map[int][]string{
		1: {"14:00", "17:30", "20:30"},
		2: {"15:15", "18:00", "21:00"},
	}
	var out []Session
	for day := 0; day <= 3; day++ {
		for screen := 1; screen <= 2; screen++ {
			for slot := 1; slot <= 3; slot++ {
				s := Session{
					ID:           base + day*100 + screen*10 + slot,
					FilmID:       fmt.Sprintf("HO%08d", 1+(day*3+screen*2+slot+cinemaIndex)%films),
					ScreenNumber: screen,
				}
				if screen == 2 && slot == 3 {
					s.Attributes = []string{"OV"} // the late show on screen 2 is in the original version
				}
				if day == 0 {
					d := Duration(todayStarts[screen][slot-1])
					s.StartsIn = &d
				} else {
					dd := day
					s.Day, s.At = &dd, laterAt[screen][slot-1]
				}
				out = append(out, s)
			}
		}
	}
	return out
}

// Sessions of the change cut-off bookings (100019, 100021): two more showings today on Saal 2
// of cinema 0001, outside the base + day*100 + screen*10 + slot scheme's slots 1-3.
const (
	sessionSoon    = 1028 // starts 20 minutes after start-up: inside the default 30-minute cut-off
	sessionStarted = 1029 // started 10 minutes before start-up
)

func cutoffSessions() []Session {
	soon, started := Duration(20*time.Minute), Duration(-10*time.Minute)
	return []Session{
		{ID: sessionSoon, FilmID: "HO00000004", ScreenNumber: 2, StartsIn: &soon},
		{ID: sessionStarted, FilmID: "HO00000002", ScreenNumber: 2, StartsIn: &started},
	}
}

// Sessions of the showtime change of booking 100001 (session 1113, "Otters of the Elbe" at
// cinema 0001, tomorrow 20:30): the same film there in 1312 (in three days, 17:30, Saal 1) at
// the same price, in 1223 (the day after tomorrow, 21:00, Saal 2, OV) at a surcharge, and in the
// matinee 1214 (the day after tomorrow, 11:00, Saal 1, outside the slots 1-3 scheme, all seats
// free) at a discount.
const (
	sessionOVLate   = 1223
	ovLateSurcharge = 150 // cents per seat: the OV late show's surcharge
	sessionMatinee  = 1214
	matineeDiscount = -300 // cents per seat
)

// matineeSession is the cheaper later show of "Otters of the Elbe" at cinema 0001.
func matineeSession() Session {
	day := 2
	return Session{ID: sessionMatinee, FilmID: "HO00000004", ScreenNumber: 1, Day: &day, At: "11:00", PriceAdjustInCents: matineeDiscount}
}

// priceCard gives session id its price adjustment per seat.
func priceCard(sessions []Session, id int, adjust int64) {
	for i := range sessions {
		if sessions[i].ID == id {
			sessions[i].PriceAdjustInCents = adjust
			return
		}
	}
	panic(fmt.Sprintf("sandbox: default world: no session %d for a price card", id))
}

// taxIncluded is the tax contained in a tax-inclusive price, rounded half up.
func taxIncluded(price, ratePercent int64) int64 {
	return (price*ratePercent + (100+ratePercent)/2) / (100 + ratePercent)
}

func ticketTypes(rate int64, list []TicketType) []TicketType {
	for i := range list {
		list[i].TaxInCents = taxIncluded(list[i].PriceInCents, rate)
	}
	return list
}

func ago(d time.Duration) *Duration { v := Duration(d); return &v }

func intPtr(v int) *int { return &v }

func defaultDeals(upgrade string) []Deal {
	return []Deal{
		{ID: "DEAL-UPGRADE", Description: upgrade, IsTicketUpgrade: true, LimitPerOrder: intPtr(4)},
		{ID: "DEAL-MEMBER-SNACK", Description: "Members: a free small popcorn with two tickets", RequiresLoyalty: true, LimitPerOrder: intPtr(1)},
		{ID: "DEAL-FAMILY", Description: "Family of four: one child ticket free", ExcludesExistingDeals: true, ExcludesExistingDealsAvailable: 1},
	}
}

// bigScreen is the 412-seat auditorium: a 312-place stalls area with two
// aisles, a cross aisle, wheelchair spaces with companion seats, house seats
// and a broken seat; and a 100-place premium lounge with recliners and sofas.
func bigScreen(number int, name string) Screen {
	std := "sssss..ssssssssssssss..sssss"
	stalls := []Row{
		{"A", "WcWcs..ssssssssssssss..scWcW"},
		{"B", std}, {"C", std}, {"D", std}, {"E", std}, {"F", std}, {"G", std},
		{"", ""}, // cross aisle
		{"H", "sssss..ssssshhhhsssss..sssss"},
		{"J", std},
		{"K", "sssss..ssssssssssssss..ssxss"},
		{"L", std}, {"M", std}, {"N", std},
	}
	recliners := "ssss.ssssssssssss.ssss"
	sofas := "[].[][][][][][][][].[]"
	lounge := []Row{{"P", recliners}, {"Q", recliners}, {"R", sofas}, {"S", sofas}, {"T", sofas}}
	return Screen{Number: number, Name: name, Areas: []Area{
		{Number: 1, AreaCategoryCode: catStandard, Description: "Stalls", Rows: stalls},
		{Number: 2, AreaCategoryCode: catPremium, Description: "Premium Lounge", Rows: lounge},
	}}
}

func smallScreen(number int, name string, rows int, normal, front string) Screen {
	var rs []Row
	for i := 0; i < rows; i++ {
		layout := normal
		if i == 0 {
			layout = front
		}
		rs = append(rs, Row{Name: string(rune('A' + i)), Seats: layout})
	}
	return Screen{Number: number, Name: name, Areas: []Area{{Number: 1, AreaCategoryCode: catStandard, Description: "Stalls", Rows: rs}}}
}

// berlinCinema is the cinema most journeys use: two screens (one with a premium lounge and
// sofas), every kind of ticket type, and a ready-made booking for each case (berlinBookings).
func berlinCinema() Cinema {
	const rate = 19
	return Cinema{
		ID: "0001", Name: "Lichtspielhaus Mitte", CurrencyCode: "EUR", Locale: "de-DE", TimeZone: "Europe/Berlin",
		AreaCategories: []AreaCategory{
			{Code: catStandard, Description: "Standard"},
			{Code: catPremium, Description: "Premium", InSeatDelivery: true},
		},
		Screens: []Screen{
			bigScreen(1, "Saal 1"),
			smallScreen(2, "Saal 2", 8, "sss..ssssssss..sss", "Wcs..ssssssss..scW"),
		},
		TicketTypes: ticketTypes(rate, []TicketType{
			{Code: "0001", AreaCategoryCode: catStandard, Description: "Adult", PriceInCents: 1250},
			{Code: "0002", AreaCategoryCode: catStandard, Description: "Child", PriceInCents: 850, IsChild: true},
			{Code: "0003", AreaCategoryCode: catStandard, Description: "Senior", PriceInCents: 950},
			{Code: "0004", AreaCategoryCode: catStandard, Description: "Couple package", LongDescription: "Two seats side by side", PriceInCents: 2200, PackageSize: 2},
			{Code: "0005", AreaCategoryCode: catStandard, Description: "Member reward", LongDescription: "Loyalty recognition ticket", PriceInCents: 500, IsLoyaltyRecognition: true},
			{Code: "0006", AreaCategoryCode: catStandard, Description: "Voucher ticket", LongDescription: "Prepaid voucher", PriceInCents: 0, IsVoucher: true},
			{Code: "0007", AreaCategoryCode: catStandard, Description: "Partner club", LongDescription: "Third-party member ticket", PriceInCents: 990, IsThirdPartyMember: true},
			{Code: "0101", AreaCategoryCode: catPremium, Description: "Adult Premium", PriceInCents: 1650},
			{Code: "0102", AreaCategoryCode: catPremium, Description: "Child Premium", PriceInCents: 1150, IsChild: true},
			{Code: "0103", AreaCategoryCode: catPremium, Description: "Senior Premium", PriceInCents: 1350},
			{Code: "0104", AreaCategoryCode: catPremium, Description: "Sofa for two", LongDescription: "A premium sofa, two places", PriceInCents: 3000, PackageSize: 2},
		}),
		FeeRules: []FeeRule{
			{ValidFromAgo: ago(730 * 24 * time.Hour), PerTicketInCents: 50, TaxRatePercent: rate},
			{ValidFromAgo: ago(14 * 24 * time.Hour), PerTicketInCents: 75, TaxRatePercent: rate},
		},
		Concessions: []Concession{
			{ItemID: "C001", Description: "Popcorn (large)", PriceInCents: 650, TaxInCents: taxIncluded(650, 7)},
			{ItemID: "C002", Description: "Soft drink", PriceInCents: 450, TaxInCents: taxIncluded(450, rate)},
			{ItemID: "C003", Description: "Nachos", PriceInCents: 700, TaxInCents: taxIncluded(700, 7)},
		},
		SuggestedDeals: defaultDeals("Upgrade to the Premium Lounge for 4,00 €"),
		Bookings:       berlinBookings(),
	}
}

// berlinBookings are the ready-made bookings of the Berlin cinema, one per case a journey
// starts from (PrintBookings lists them with their case).
func berlinBookings() []Booking {
	created := ago(48 * time.Hour)
	visa := func(n int64) *BookingPayment {
		return &BookingPayment{External: true, ProviderReference: fmt.Sprintf("pi_seed%06d", n), TenderCategory: "CREDIT", CardNumberMasked: "************4242", CardType: "VISA"}
	}
	master := func(n int64) *BookingPayment {
		return &BookingPayment{External: true, ProviderReference: fmt.Sprintf("pi_seed%06d", n), TenderCategory: "CREDIT", CardNumberMasked: "************5454", CardType: "MASTERCARD"}
	}
	tk := func(code string, seats ...string) BookingTicket {
		return BookingTicket{TicketTypeCode: code, Seats: seats}
	}
	return []Booking{
		{Number: 100001, ID: "BK0186A1", Case: "paid, simple (2 adults)", SessionID: 1113, CustomerName: "Ada Lovelace", CustomerEmail: "paid1@example.com", CreatedAgo: created, Paid: true,
			Tickets: []BookingTicket{tk("0001", "F11"), tk("0001", "F12")}, Payment: visa(100001)},
		{Number: 100002, ID: "BK0186A2", Case: "paid, simple (adult + child)", SessionID: 1113, CustomerName: "Alan Turing", CustomerEmail: "paid2@example.com", CreatedAgo: created, Paid: true,
			Tickets: []BookingTicket{tk("0001", "F14"), tk("0002", "F15")}, Payment: master(100002)},
		{Number: 100003, ID: "BK0186A3", Case: "paid, simple (2 adults)", SessionID: 1113, CustomerName: "Katherine Johnson", CustomerEmail: "paid3@example.com", CreatedAgo: created, Paid: true,
			Tickets: []BookingTicket{tk("0001", "G11"), tk("0001", "G12")}, Payment: visa(100003)},
		{Number: 100004, ID: "BK0186A4", Case: "paid, simple (adult, senior, child)", SessionID: 1113, CustomerName: "Edsger Dijkstra", CustomerEmail: "paid4@example.com", CreatedAgo: created, Paid: true,
			Tickets: []BookingTicket{tk("0001", "J10"), tk("0003", "J11"), tk("0002", "J12")}, Payment: visa(100004)},
		{Number: 100005, ID: "BK0186A5", Case: "paid, simple (1 premium adult)", SessionID: 1113, CustomerName: "Barbara Liskov", CustomerEmail: "paid5@example.com", CreatedAgo: created, Paid: true,
			Tickets: []BookingTicket{tk("0101", "P10")}, Payment: master(100005)},
		{Number: 100006, ID: "BK0186A6", Case: "paid, simple (2 adults, small screen)", SessionID: 1123, CustomerName: "John Backus", CustomerEmail: "paid6@example.com", CreatedAgo: created, Paid: true,
			Tickets: []BookingTicket{tk("0001", "D7"), tk("0001", "D8")}, Payment: visa(100006)},
		{Number: 100010, ID: "BK0186AA", Case: "unpaid reservation", SessionID: 1113, CustomerName: "Hedy Lamarr", CustomerEmail: "unpaid@example.com", CreatedAgo: created, Paid: false,
			Tickets: []BookingTicket{tk("0001", "E11"), tk("0001", "E12")}},
		{Number: 100011, ID: "BK0186AB", Case: "with concessions", SessionID: 1113, CustomerName: "Linus Torvalds", CustomerEmail: "concessions@example.com", CreatedAgo: created, Paid: true,
			Tickets: []BookingTicket{tk("0001", "D11"), tk("0001", "D12")}, Concessions: []BookingConcession{{ItemID: "C001", Quantity: 2}, {ItemID: "C002", Quantity: 1}}, Payment: visa(100011)},
		{Number: 100012, ID: "BK0186AC", Case: "with a package ticket (sofa for two)", SessionID: 1113, CustomerName: "Ken Thompson", CustomerEmail: "package@example.com", CreatedAgo: created, Paid: true,
			Tickets: []BookingTicket{tk("0104", "R5", "R6")}, Payment: visa(100012)},
		{Number: 100013, ID: "BK0186AD", Case: "with a loyalty recognition ticket", SessionID: 1113, CustomerName: "Ada Lovelace", CustomerEmail: "loyalty@example.com", CreatedAgo: created, Paid: true,
			Tickets: []BookingTicket{tk("0005", "C11"), tk("0001", "C12")}, Payment: visa(100013)},
		{Number: 100014, ID: "BK0186AE", Case: "with a voucher ticket", SessionID: 1113, CustomerName: "Dennis Ritchie", CustomerEmail: "voucher@example.com", CreatedAgo: created, Paid: true,
			Tickets: []BookingTicket{tk("0006", "C14"), tk("0001", "C15")}, Payment: visa(100014)},
		{Number: 100015, ID: "BK0186AF", Case: "with a third-party member ticket", SessionID: 1113, CustomerName: "Margaret Hamilton", CustomerEmail: "partner@example.com", CreatedAgo: created, Paid: true,
			Tickets: []BookingTicket{tk("0007", "B11"), tk("0007", "B12")}, Payment: master(100015)},
		{Number: 100016, ID: "BK0186B0", Case: "paid through the service's own payment processing", SessionID: 1113, CustomerName: "Frances Allen", CustomerEmail: "internal@example.com", CreatedAgo: created, Paid: true,
			Tickets: []BookingTicket{tk("0001", "H6"), tk("0001", "H7")},
			Payment: &BookingPayment{External: false, TenderCategory: "CREDIT", CardNumberMasked: "************1881", CardType: "VISA"}},
		{Number: 100017, ID: "BK0186B1", Case: "with in-seat delivery", SessionID: 1113, CustomerName: "Radia Perlman", CustomerEmail: "inseat@example.com", CreatedAgo: created, Paid: true, InSeatDelivery: true,
			Tickets: []BookingTicket{tk("0101", "Q10"), tk("0101", "Q11")}, Payment: visa(100017)},
		{Number: 100018, ID: "BK0186B2", Case: "fee rule changed since purchase (edit shows +0,50 at once)", SessionID: 1113, CustomerName: "Donald Knuth", CustomerEmail: "feechange@example.com", CreatedAgo: ago(30 * 24 * time.Hour), Paid: true,
			Tickets: []BookingTicket{tk("0001", "L11"), tk("0001", "L12")}, Payment: visa(100018)},
		{Number: 100019, ID: "BK0186B3", Case: "show starts 20 minutes after start-up: inside the 30-minute change cut-off", SessionID: sessionSoon, CustomerName: "Sophie Wilson", CustomerEmail: "soon@example.com", CreatedAgo: created, Paid: true,
			Tickets: []BookingTicket{tk("0001", "E7"), tk("0001", "E8")}, Payment: visa(100019)},
		// Paid in two external payments: two seniors by card, then a child added later and
		// paid by PayPal (made 20 days ago, at the old fee of 0,50: 2 × 10,00 + 9,00). A
		// refund larger than the newest payment goes back over both, newest first.
		{Number: 100020, ID: "BK0186B4", Case: "paid by two external payments (20,00 VISA + 9,00 PAYPAL): refunds split over both", SessionID: 1113, CustomerName: "Annie Easley", CustomerEmail: "split@example.com", CreatedAgo: ago(20 * 24 * time.Hour), Paid: true,
			Tickets: []BookingTicket{tk("0003", "K11"), tk("0003", "K12"), tk("0002", "K13")},
			Payments: []BookingPayment{
				{External: true, ProviderReference: "pi_seed100020a", TenderCategory: "CREDIT", CardNumberMasked: "************4242", CardType: "VISA", AmountInCents: 2000},
				{External: true, ProviderReference: "pi_seed100020b", TenderCategory: "CREDIT", CardType: "PAYPAL", AmountInCents: 900},
			}},
		{Number: 100021, ID: "BK0186B5", Case: "show started 10 minutes before start-up: edit and swap refused session_started", SessionID: sessionStarted, CustomerName: "Jean Sammet", CustomerEmail: "started@example.com", CreatedAgo: created, Paid: true,
			Tickets: []BookingTicket{tk("0001", "E7"), tk("0001", "E8")}, Payment: master(100021)},
	}
}

func londonCinema() Cinema {
	const rate = 20
	return Cinema{
		ID: "0002", Name: "Riverside Picturehouse", CurrencyCode: "GBP", Locale: "en-GB", TimeZone: "Europe/London",
		AreaCategories: []AreaCategory{
			{Code: catStandard, Description: "Standard"},
			{Code: catPremium, Description: "Balcony"},
		},
		Screens: []Screen{
			{Number: 1, Name: "Screen 1", Areas: []Area{
				{Number: 1, AreaCategoryCode: catStandard, Description: "Stalls", Rows: []Row{
					{"A", "Wcss.ssssssssss.ssWc"}, {"B", "ssss.ssssssssss.ssss"}, {"C", "ssss.ssssssssss.ssss"},
					{"D", "ssss.ssssssssss.ssss"}, {"E", "ssss.ssssssssss.ssss"}, {"F", "ssss.ssssssssss.ssss"},
					{"G", "ssss.ssssssssss.ssss"}, {"H", "ssss.sssshhssss.ssss"},
				}},
				{Number: 2, AreaCategoryCode: catPremium, Description: "Balcony", Rows: []Row{
					{"J", "[].[][][][][][].[]"}, {"K", "[].[][][][][][].[]"},
				}},
			}},
			smallScreen(2, "Screen 2", 6, "sss.ssssss.sss", "Wcs.ssssss.scW"),
		},
		TicketTypes: ticketTypes(rate, []TicketType{
			{Code: "0001", AreaCategoryCode: catStandard, Description: "Adult", PriceInCents: 1100},
			{Code: "0002", AreaCategoryCode: catStandard, Description: "Child", PriceInCents: 750, IsChild: true},
			{Code: "0003", AreaCategoryCode: catStandard, Description: "Senior", PriceInCents: 850},
			{Code: "0004", AreaCategoryCode: catStandard, Description: "Couple package", PriceInCents: 2000, PackageSize: 2},
			{Code: "0005", AreaCategoryCode: catStandard, Description: "Member reward", PriceInCents: 400, IsLoyaltyRecognition: true},
			{Code: "0006", AreaCategoryCode: catStandard, Description: "Voucher ticket", PriceInCents: 0, IsVoucher: true},
			{Code: "0007", AreaCategoryCode: catStandard, Description: "Partner club", PriceInCents: 900, IsThirdPartyMember: true},
			{Code: "0101", AreaCategoryCode: catPremium, Description: "Adult Balcony", PriceInCents: 1450},
			{Code: "0102", AreaCategoryCode: catPremium, Description: "Child Balcony", PriceInCents: 1000, IsChild: true},
			{Code: "0104", AreaCategoryCode: catPremium, Description: "Sofa for two", PriceInCents: 2700, PackageSize: 2},
		}),
		FeeRules: []FeeRule{
			{ValidFromAgo: ago(730 * 24 * time.Hour), PerTicketInCents: 40, TaxRatePercent: rate},
			{ValidFromAgo: ago(14 * 24 * time.Hour), PerTicketInCents: 60, TaxRatePercent: rate},
		},
		Concessions: []Concession{
			{ItemID: "C001", Description: "Popcorn", PriceInCents: 550, TaxInCents: taxIncluded(550, rate)},
			{ItemID: "C002", Description: "Soft drink", PriceInCents: 380, TaxInCents: taxIncluded(380, rate)},
		},
		SuggestedDeals: defaultDeals("Upgrade to the Balcony for £3.00"),
		Bookings: []Booking{
			{Number: 200001, ID: "BK030D41", Case: "paid, simple (2 adults, GBP)", SessionID: 2113, CustomerName: "Tim Berners-Lee", CustomerEmail: "paid7@example.com", CreatedAgo: ago(48 * time.Hour), Paid: true,
				Tickets: []BookingTicket{{TicketTypeCode: "0001", Seats: []string{"E9"}}, {TicketTypeCode: "0001", Seats: []string{"E10"}}},
				Payment: &BookingPayment{External: true, ProviderReference: "pi_seed200001", TenderCategory: "CREDIT", CardNumberMasked: "************4242", CardType: "VISA"}},
		},
	}
}
