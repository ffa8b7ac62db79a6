package wallet

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/wallet/passes"
)

// TestWalletLinksExpireAfterTheShow: a booking's wallet links work until LinkValidFor (a week
// by default) after its show and then answer a LinkExpiredError saying until when, issuing no
// pass.
func TestWalletLinksExpireAfterTheShow(t *testing.T) {
	ctx := context.Background()
	show := time.Date(2026, 11, 29, 20, 30, 0, 0, time.UTC) // newService's booking
	for _, tc := range []struct {
		name     string
		validFor time.Duration
		at       time.Time
		until    time.Time // zero: the links work
	}{
		{"before the show", 0, show.Add(-time.Hour), time.Time{}},
		{"a week after the show, less a second", 0, show.Add(7*24*time.Hour - time.Second), time.Time{}},
		{"a week after the show", 0, show.Add(7 * 24 * time.Hour), show.Add(7 * 24 * time.Hour)},
		{"a day, configured, and two days on", 24 * time.Hour, show.Add(48 * time.Hour), show.Add(24 * time.Hour)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, _, _, _ := newService(t)
			svc.LinkValidFor, svc.Now = tc.validFor, func() time.Time { return tc.at }
			_, _, appleErr := svc.ApplePass(ctx, "0001", 100002, "en")
			_, googleErr := svc.GoogleSaveURL(ctx, "0001", 100002, "en")
			for what, err := range map[string]error{"apple": appleErr, "google": googleErr} {
				var expired *LinkExpiredError
				switch {
				case tc.until.IsZero() && err != nil:
					t.Errorf("%s: %v, want the pass", what, err)
				case !tc.until.IsZero() && (!errors.As(err, &expired) || !errors.Is(err, ErrLinkExpired) || !expired.Until.Equal(tc.until) ||
					expired.Zone.String() != "Europe/Berlin"):
					t.Errorf("%s: %v, want expired at %s in the cinema's zone", what, err, tc.until)
				}
			}
			if _, err := svc.Passes.PassOf(ctx, svc.Apple.PassTypeID, "0001", 100002); !tc.until.IsZero() && !errors.Is(err, passes.ErrUnknownPass) {
				t.Errorf("an expired link issued a pass: %v", err)
			}
		})
	}
}

// voided reads a .pkpass's voided flag and barcode.
func voided(t *testing.T, pkpass []byte) (bool, string) {
	t.Helper()
	var p struct {
		Voided   bool
		Barcodes []struct{ Message string }
	}
	if err := json.Unmarshal(fileOf(t, pkpass, "pass.json"), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Barcodes) != 1 {
		t.Fatalf("barcodes %+v", p.Barcodes)
	}
	return p.Voided, p.Barcodes[0].Message
}

// TestACancelledBookingStopsItsLinksAndVoidsItsPass: a booking cancelled at the box office (no
// ticket left; no change of ours saw it) answers ErrNoTickets to its wallet links, and the Apple
// pass already in a wallet is voided and its phone told, whether the link or Wallet itself asks
// first.
func TestACancelledBookingStopsItsLinksAndVoidsItsPass(t *testing.T) {
	for _, first := range []string{"the link", "Wallet"} {
		t.Run(first, func(t *testing.T) {
			ctx := context.Background()
			svc, bk, _, pu := newService(t)
			svc.Now = func() time.Time { return bk.b.Session.Showtime.Add(-time.Hour) }
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
			bk.keep() // cancelled elsewhere

			if first == "the link" {
				if _, _, err := svc.ApplePass(ctx, "0001", 100002, "en"); !errors.Is(err, ErrNoTickets) {
					t.Fatalf("the Apple link of the cancelled booking: %v", err)
				}
				if _, err := svc.GoogleSaveURL(ctx, "0001", 100002, "en"); !errors.Is(err, ErrNoTickets) {
					t.Fatalf("the Google link of the cancelled booking: %v", err)
				}
				if len(pu.tokens) == 0 || pu.tokens[0] != "0a1b2c3d4e5f" {
					t.Fatalf("the phone was not told: %v", pu.tokens)
				}
			}
			out, _, err := svc.LatestPass(ctx, pass.PassType, pass.Serial)
			if err != nil {
				t.Fatalf("Wallet asks for the pass of the cancelled booking: %v", err)
			}
			if v, code := voided(t, out); !v || code != "CANCELLED 100002" {
				t.Fatalf("the pass Wallet gets: voided %v, code %q", v, code)
			}
			if p, err := svc.Passes.PassOf(ctx, pass.PassType, "0001", 100002); err != nil || !p.Voided {
				t.Fatalf("the stored pass: %+v %v", p, err)
			}
			if len(pu.tokens) != 1 {
				t.Fatalf("pushes %v, want one", pu.tokens)
			}
		})
	}
}
