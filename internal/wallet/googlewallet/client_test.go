package googlewallet

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/wallet/googlepass"
)

func account(t *testing.T) googlepass.ServiceAccount {
	t.Helper()
	sa, err := googlepass.GenerateTestServiceAccount(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return sa
}

func standIn(t *testing.T, sa googlepass.ServiceAccount) (*Recorder, *Client) {
	t.Helper()
	rec := NewRecorder(&sa.Key.PublicKey)
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	c, err := New(context.Background(), Options{BaseURL: srv.URL, TokenURL: srv.URL + "/token", Account: sa, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return rec, c
}

func moved() *googlepass.Object {
	return &googlepass.Object{ID: "3388.0001-100002-1", State: googlepass.StateActive,
		SeatInfo: &googlepass.SeatInfo{Seat: &googlepass.LocalizedString{DefaultValue: &googlepass.TranslatedString{Language: "en", Value: "4"}}}}
}

func TestPatchReachesTheAPIWithAToken(t *testing.T) {
	sa := account(t)
	rec, c := standIn(t, sa)
	if err := c.Patch(context.Background(), moved()); err != nil {
		t.Fatal(err)
	}
	got := rec.Patches("3388.0001-100002-1")
	if len(got) != 1 || got[0].SeatInfo == nil || got[0].SeatInfo.Seat.DefaultValue.Value != "4" || got[0].State != "ACTIVE" {
		t.Fatalf("the stand-in recorded %+v", rec.Calls())
	}
}

func TestPatchFailures(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fail    []int // statuses of the next calls
		wantErr error // nil: the patch lands
		calls   int   // object calls made
	}{
		{"busy once, then landed", []int{http.StatusServiceUnavailable}, nil, 2},
		{"rate-limited once, then landed", []int{http.StatusTooManyRequests}, nil, 2},
		{"failing throughout", []int{500, 500, 500, 500}, errAny, 3},
		{"refused, not retried", []int{http.StatusBadRequest}, errAny, 1},
		{"never saved", []int{http.StatusNotFound}, ErrNotSaved, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, c := standIn(t, account(t))
			for _, s := range tc.fail {
				rec.FailNext(1, s)
			}
			err := c.Patch(context.Background(), moved())
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("patch: %v", err)
			case tc.wantErr == errAny && err == nil, tc.wantErr != nil && tc.wantErr != errAny && !errors.Is(err, tc.wantErr):
				t.Fatalf("patch: %v, want %v", err, tc.wantErr)
			}
			if n := len(rec.Calls()); n != tc.calls {
				t.Errorf("%d calls, want %d", n, tc.calls)
			}
		})
	}
}

// errAny marks a case that must fail, with any error.
var errAny = errors.New("any error")

func TestAGrantSignedByAnotherKeyIsRefused(t *testing.T) {
	sa, other := account(t), account(t)
	rec := NewRecorder(&sa.Key.PublicKey)
	srv := httptest.NewServer(rec)
	defer srv.Close()
	c, err := New(context.Background(), Options{BaseURL: srv.URL, TokenURL: srv.URL + "/token", Account: other})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Patch(context.Background(), moved()); err == nil {
		t.Fatal("a patch with a token got by another key landed")
	}
	if n := len(rec.Calls()); n != 0 {
		t.Errorf("%d object calls reached the API without a token", n)
	}
}

func TestAnObjectCallWithoutATokenIsUnauthenticated(t *testing.T) {
	srv := httptest.NewServer(NewRecorder(nil))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPatch, srv.URL+"/walletobjects/v1/eventTicketObject/3388.x", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401", resp.StatusCode)
	}
}

func TestNewRefusesAnAccountWithoutAKey(t *testing.T) {
	if _, err := New(context.Background(), Options{Account: googlepass.ServiceAccount{Email: "a@b"}}); !errors.Is(err, googlepass.ErrBadKey) {
		t.Fatalf("New without a key: %v", err)
	}
}
