package wallet

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/storage"
	"github.com/cinemabff/cinemabff/internal/tickets"
	"github.com/cinemabff/cinemabff/internal/wallet/applepass"
	"github.com/cinemabff/cinemabff/internal/wallet/googlepass"
	"github.com/cinemabff/cinemabff/internal/wallet/googlewallet"
	"github.com/cinemabff/cinemabff/internal/wallet/passes"
)

// booking is the ticketing system's booking, as the test changes it.
type booking struct {
	mu    sync.Mutex
	b     cinema.Booking
	reads int
}

func (f *booking) ReadBooking(_ context.Context, _ string, _ int64, _ ...func(context.Context, cinema.Booking)) (cinema.Booking, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	return f.b, nil
}

func (f *booking) keep(lines ...int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var kept []cinema.BookedTicket
	for _, t := range f.b.Tickets {
		for _, l := range lines {
			if t.Seq == l {
				kept = append(kept, t)
			}
		}
	}
	f.b.Tickets = kept
}

type cinemas struct{}

func (cinemas) CinemaByID(context.Context, string) cinema.Cinema {
	return cinema.Cinema{ID: "0001", Name: "Elbe Lichtspiele", TimeZone: "Europe/Berlin"}
}

// patcher records the patches asked for; objects in notSaved answer ErrNotSaved.
type patcher struct {
	mu       sync.Mutex
	patches  []*googlepass.Object
	notSaved map[string]bool
}

func (p *patcher) Patch(_ context.Context, o *googlepass.Object) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.patches = append(p.patches, o)
	if p.notSaved[o.ID] {
		return fmt.Errorf("%w: %s", googlewallet.ErrNotSaved, o.ID)
	}
	return nil
}

func (p *patcher) take() map[string]*googlepass.Object {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]*googlepass.Object{}
	for _, o := range p.patches {
		out[o.ID] = o
	}
	p.patches = nil
	return out
}

type pusher struct {
	mu     sync.Mutex
	tokens []string
}

func (p *pusher) Push(_ context.Context, token string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tokens = append(p.tokens, token)
	return nil
}

func seat(row, label string) *cinema.SeatRef { return &cinema.SeatRef{RowLabel: row, Label: label} }

func newService(t *testing.T) (*Service, *booking, *patcher, *pusher) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := storage.Open(ctx, "sqlite:"+filepath.Join(dir, "wallet.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	store, err := passes.NewStore(db.SQL, []byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	apple, _, err := applepass.GenerateTestIdentity(dir, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	google, err := googlepass.GenerateTestServiceAccount(dir)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := tickets.NewSigner([]byte("fedcba9876543210fedcba9876543210"))
	if err != nil {
		t.Fatal(err)
	}
	bk := &booking{b: cinema.Booking{Number: 100002, ID: "WBK100002", CinemaID: "0001",
		Session: cinema.SessionInfo{ID: "S1", FilmTitle: "Otters of the Elbe", Showtime: time.Date(2026, 11, 29, 20, 30, 0, 0, time.UTC), ScreenName: "Screen 1"},
		Tickets: []cinema.BookedTicket{{Seq: 1, Seat: seat("F", "14")}, {Seq: 2, Seat: seat("F", "15")}}}}
	p, pu := &patcher{notSaved: map[string]bool{}}, &pusher{}
	svc := &Service{Bookings: bk, Cinemas: cinemas{}, Codes: signer, Organization: "Elbe Lichtspiele", Apple: apple,
		Google: googlepass.Issuer{ID: "3388", ClassID: "cinema-tickets"}, GoogleKey: google, Passes: store,
		WebServiceURL: "https://tickets.example/passkit", GoogleAPI: p,
		Locations: map[string]applepass.Location{"0001": {Latitude: 52.5219, Longitude: 13.4132}},
		Notifier:  &passes.Notifier{Store: store, Pusher: pu, Logger: slog.New(slog.DiscardHandler)},
		Now:       func() time.Time { return time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC) }} // the day before the show
	return svc, bk, p, pu
}

func TestThePassIsRelevantAtTheCinema(t *testing.T) {
	svc, _, _, _ := newService(t)
	out, _, err := svc.ApplePass(context.Background(), "0001", 100002, "en")
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Locations []struct {
			Latitude, Longitude float64
			RelevantText        string
		}
		RelevantDate string
	}
	if err := json.Unmarshal(fileOf(t, out, "pass.json"), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Locations) != 1 || p.Locations[0].Latitude != 52.5219 || p.Locations[0].Longitude != 13.4132 ||
		p.Locations[0].RelevantText != "Otters of the Elbe at Elbe Lichtspiele" || p.RelevantDate != "2026-11-29T21:30:00+01:00" {
		t.Fatalf("pass.json locations %+v, relevantDate %q", p.Locations, p.RelevantDate)
	}
}

func TestAChangeOfABookingInNoWalletAsksNothingOfTheTicketingSystem(t *testing.T) {
	ctx := context.Background()
	svc, bk, p, pu := newService(t)
	bk.keep(1)
	if err := svc.Changed(ctx, "0001", 100002); err != nil {
		t.Fatal(err)
	}
	if bk.reads != 0 || len(p.take()) != 0 || len(pu.tokens) != 0 {
		t.Fatalf("a booking never added to a wallet: %d reads, patches or pushes made", bk.reads)
	}
	// Once its tickets are in Google Wallet, a change reads the booking to patch them.
	if _, err := svc.GoogleSaveURL(ctx, "0001", 100002, "en"); err != nil {
		t.Fatal(err)
	}
	bk.reads = 0
	if err := svc.Changed(ctx, "0001", 100002); err != nil {
		t.Fatal(err)
	}
	if bk.reads != 1 || len(p.take()) != 1 { // the one ticket left, saved and patched
		t.Fatalf("after saving to Google: %d reads of the booking", bk.reads)
	}
}

func TestARemovedTicketsGoogleObjectIsMadeInactiveOnce(t *testing.T) {
	ctx := context.Background()
	svc, bk, p, _ := newService(t)
	if _, err := svc.GoogleSaveURL(ctx, "0001", 100002, "en"); err != nil {
		t.Fatal(err)
	}
	bk.keep(1)
	if err := svc.Changed(ctx, "0001", 100002); err != nil {
		t.Fatal(err)
	}
	got := p.take()
	kept, removed := got["3388.0001-100002-1"], got["3388.0001-100002-2"]
	if len(got) != 2 || kept == nil || kept.State != googlepass.StateActive || kept.SeatInfo.Seat.DefaultValue.Value != "14" {
		t.Fatalf("patches after removing line 2: %+v", got)
	}
	if removed == nil || removed.State != googlepass.StateInactive || removed.SeatInfo != nil || removed.Barcode != nil {
		t.Fatalf("the removed ticket's object was patched to %+v, want only its state INACTIVE", removed)
	}
	if err := svc.Changed(ctx, "0001", 100002); err != nil {
		t.Fatal(err)
	}
	if again := p.take(); len(again) != 1 || again["3388.0001-100002-1"] == nil {
		t.Fatalf("the next change patched %v: the inactive object again, or not the kept one", again)
	}
}

func TestAnObjectNobodySavedIsNoFailure(t *testing.T) {
	ctx := context.Background()
	svc, bk, p, _ := newService(t)
	if _, err := svc.GoogleSaveURL(ctx, "0001", 100002, "en"); err != nil {
		t.Fatal(err)
	}
	p.notSaved["3388.0001-100002-2"] = true
	bk.keep(1)
	if err := svc.Changed(ctx, "0001", 100002); err != nil {
		t.Fatalf("a change with an unsaved object: %v", err)
	}
	if first := p.take(); len(first) != 2 {
		t.Fatalf("patches: %v", first)
	}
	// Nobody holds the removed ticket's object, so there is nothing to tell again.
	if err := svc.Changed(ctx, "0001", 100002); err != nil {
		t.Fatal(err)
	}
	if again := p.take(); len(again) != 1 || again["3388.0001-100002-2"] != nil {
		t.Fatalf("patches of the next change: %v", again)
	}
}

func TestABookingWithNoTicketLeftVoidsItsApplePass(t *testing.T) {
	ctx := context.Background()
	svc, bk, _, pu := newService(t)
	if _, _, err := svc.ApplePass(ctx, "0001", 100002, "en"); err != nil {
		t.Fatal(err)
	}
	pass, err := svc.Passes.PassOf(ctx, svc.Apple.PassTypeID, "0001", 100002)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Passes.Register(ctx, "device-1", "0a1b2c3d4e5f", pass.PassType, pass.Serial); err != nil {
		t.Fatal(err)
	}
	bk.keep()
	if err := svc.Changed(ctx, "0001", 100002); err != nil {
		t.Fatal(err)
	}
	if len(pu.tokens) != 1 || pu.tokens[0] != "0a1b2c3d4e5f" {
		t.Fatalf("pushes: %v", pu.tokens)
	}
	out, _, err := svc.LatestPass(ctx, pass.PassType, pass.Serial)
	if err != nil {
		t.Fatalf("the voided pass: %v", err)
	}
	var p struct {
		Voided   bool
		Barcodes []struct{ Message string }
	}
	if err := json.Unmarshal(fileOf(t, out, "pass.json"), &p); err != nil {
		t.Fatal(err)
	}
	if !p.Voided || len(p.Barcodes) != 1 || p.Barcodes[0].Message != "CANCELLED 100002" {
		t.Fatalf("the pass served after the last ticket went: %+v", p)
	}
}

func fileOf(t *testing.T, pkpass []byte, name string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(pkpass), int64(len(pkpass)))
	if err != nil {
		t.Fatal(err)
	}
	f, err := zr.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
