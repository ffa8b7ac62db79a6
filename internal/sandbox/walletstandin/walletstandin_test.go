package walletstandin

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/wallet/apns"
	"github.com/cinemabff/cinemabff/internal/wallet/googlepass"
	"github.com/cinemabff/cinemabff/internal/wallet/googlewallet"
)

func TestThePageShowsThePushesAndPatchesTheStandInsGot(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir := t.TempDir()
	key, err := TestAPNsKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := TestAPNsKey(dir); err != nil || !again.Equal(key) {
		t.Fatalf("the test key was not kept: %v", err)
	}
	push := &apns.Client{Endpoint: s.APNsURL, Topic: "pass.example.test", Auth: &apns.TokenAuth{KeyID: "SANDBOXKEY", TeamID: "TEAM123456", Key: key}}
	if err := push.Push(context.Background(), "0a1b2c3d4e5f60718293"); err != nil {
		t.Fatalf("push to the stand-in: %v", err)
	}

	mux := http.NewServeMux()
	mux.Handle(GooglePath, http.StripPrefix(strings.TrimSuffix(GooglePath, "/"), s.Google))
	sandbox := httptest.NewServer(mux)
	defer sandbox.Close()
	sa, err := googlepass.GenerateTestServiceAccount(dir)
	if err != nil {
		t.Fatal(err)
	}
	g, err := googlewallet.New(context.Background(), googlewallet.Options{BaseURL: sandbox.URL + GooglePath, TokenURL: sandbox.URL + GooglePath + "token", Account: sa})
	if err != nil {
		t.Fatal(err)
	}
	seat := func(v string) *googlepass.LocalizedString {
		return &googlepass.LocalizedString{DefaultValue: &googlepass.TranslatedString{Language: "en", Value: v}}
	}
	if err := g.Patch(context.Background(), &googlepass.Object{ID: "3388.0001-100002-1", State: "ACTIVE", SeatInfo: &googlepass.SeatInfo{Row: seat("F"), Seat: seat("4")}}); err != nil {
		t.Fatalf("patch through the stand-in: %v", err)
	}

	site := httptest.NewServer(s.Page())
	defer site.Close()
	resp, err := http.Get(site.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"push to device 0a1b2c3d…", "topic pass.example.test, HTTP/2", "PATCH eventTicketObject 3388.0001-100002-1", "state ACTIVE, row F seat 4"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the page does not show %q:\n%s", want, body)
		}
	}
}

func TestThePageIsShownOnlyOnThisMachine(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for addr, want := range map[string]int{"127.0.0.1:5000": http.StatusOK, "[::1]:5000": http.StatusOK, "192.168.1.20:5000": http.StatusForbidden} {
		r := httptest.NewRequest(http.MethodGet, "/sandbox/wallet", nil)
		r.RemoteAddr = addr
		w := httptest.NewRecorder()
		s.Page().ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("from %s: %d, want %d", addr, w.Code, want)
		}
	}
}
