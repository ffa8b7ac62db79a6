package contract

import (
	"testing"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

func TestCatalog(t *testing.T) {
	e := newEnv(t, envOptions{})
	cs, err := e.client.ListCinemas(e.ctx)
	noErr(t, err)
	if len(cs) != 2 || cs[0].ID != berlin || cs[0].Currency != "EUR" || cs[1].Currency != "GBP" || cs[0].TimeZone != "Europe/Berlin" || cs[1].TimeZone != "Europe/London" {
		t.Fatalf("cinemas %+v", cs)
	}
	films, err := e.client.ListFilms(e.ctx, berlin)
	noErr(t, err)
	if len(films) == 0 || films[0].ID == "" || films[0].Title == "" || films[0].RunTime <= 0 {
		t.Fatalf("films %+v", films)
	}
	all, err := e.client.ListSessions(e.ctx, berlin, "")
	noErr(t, err)
	found := false
	for _, s := range all {
		if s.CinemaID != berlin || s.SessionID == "" || s.FilmTitle == "" || s.Showtime.IsZero() || s.ScreenName == "" {
			t.Errorf("session %+v", s)
		}
		if s.SessionID == bigSession {
			found = true
			if !s.AllocatedSeating || s.SeatsAvailable <= 0 || !s.OnSale || s.Day() != s.Showtime.Format("2006-01-02") {
				t.Errorf("session %+v", s)
			}
		}
	}
	if !found {
		t.Errorf("session %s not listed among %d", bigSession, len(all))
	}
	// One day only: a subset.
	day := all[0].Day()
	oneDay, err := e.client.ListSessions(e.ctx, berlin, day)
	noErr(t, err)
	if len(oneDay) == 0 || len(oneDay) >= len(all) {
		t.Errorf("%d sessions on %s of %d", len(oneDay), day, len(all))
	}
	if _, err := e.client.ListFilms(e.ctx, "9999"); err != nil {
		wantErr(t, err, upstream.ErrNotFound)
	}
}

func TestSeatPlan(t *testing.T) {
	e := newEnv(t, envOptions{})
	sp := e.plan(bigSession)
	seats := 0
	kinds := map[cinema.SeatKind]int{}
	avail := map[cinema.SeatAvailability]int{}
	sofas := 0
	for _, a := range sp.Areas {
		for _, r := range a.Rows {
			for _, s := range r.Seats {
				seats++
				kinds[s.Kind]++
				avail[s.Availability]++
				if s.SofaGroup != nil {
					sofas++
				}
				if s.RowLabel != r.Label || s.AreaCategoryCode != a.AreaCategoryCode || s.Position.AreaNumber != a.Number {
					t.Fatalf("seat %+v in row %q of area %d", s, r.Label, a.Number)
				}
			}
		}
	}
	if seats != 412 {
		t.Errorf("%d seats, want the 412-seat auditorium", seats)
	}
	if kinds[cinema.SeatKindUnknown] != 0 || avail[cinema.SeatUnknown] != 0 {
		t.Errorf("unmapped seats: kinds %v availability %v", kinds, avail)
	}
	for _, k := range []cinema.SeatKind{cinema.SeatKindNormal, cinema.SeatKindWheelchair, cinema.SeatKindCompanion, cinema.SeatKindHouse, cinema.SeatKindBroken} {
		if kinds[k] == 0 {
			t.Errorf("no %v seat in %v", k, kinds)
		}
	}
	if avail[cinema.SeatTaken] == 0 || avail[cinema.SeatFree] == 0 || avail[cinema.SeatUnavailable] == 0 || sofas == 0 {
		t.Errorf("availability %v, %d sofa places", avail, sofas)
	}
	// Booking 100001 holds F11 and F12.
	if s := seat(t, sp, "F", "11"); s.Availability != cinema.SeatTaken {
		t.Errorf("F11 = %+v", s)
	}
	if len(sp.AreaCategories) != 2 {
		t.Errorf("categories %+v", sp.AreaCategories)
	}
	_, err := e.client.GetSeatPlan(e.ctx, berlin, "999999")
	wantErr(t, err, upstream.ErrNotFound)
}

func TestTicketTypes(t *testing.T) {
	e := newEnv(t, envOptions{})
	tt, err := e.client.GetTicketTypes(e.ctx, berlin, bigSession, "")
	noErr(t, err)
	byCode := map[string]cinema.TicketType{}
	for _, x := range tt {
		byCode[x.Code] = x
	}
	adult := byCode["0001"]
	if adult.Price != (cinema.Money{Cents: 1250, Currency: "EUR"}) || adult.Tax.Cents == 0 || !adult.Simple() {
		t.Errorf("adult %+v", adult)
	}
	if !byCode["0004"].IsPackage || byCode["0004"].PackageSize != 2 || !byCode["0005"].IsLoyalty || !byCode["0006"].IsVoucher ||
		!byCode["0007"].IsThirdParty || !byCode["0002"].IsChild {
		t.Errorf("flags %+v", tt)
	}
	// Priced for an order.
	o, _ := e.newOrder(1)
	_, err = e.client.GetTicketTypes(e.ctx, berlin, bigSession, o.UserSessionID)
	noErr(t, err)
	_, err = e.client.GetTicketTypes(e.ctx, berlin, "999999", "")
	wantErr(t, err, upstream.ErrNotFound)
}

func TestAuthentication(t *testing.T) {
	e := newEnv(t, envOptions{})
	bad, err := upstream.New(e.srv.URL, "wrong-token")
	noErr(t, err)
	_, err = bad.ListCinemas(e.ctx)
	wantErr(t, err, upstream.ErrUnauthorized)
	badPay, err := upstream.NewStripePayments(upstream.StripeOptions{BaseURL: e.srv.URL + "/pay", SecretKey: "sk_test_wrong", Retries: ptr(int64(0))})
	noErr(t, err)
	_, err = badPay.GetPayment(e.ctx, "cs_test_x")
	wantErr(t, err, upstream.ErrUnauthorized)
}
