package googlepass

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

var issuer = Issuer{ID: "3388000000012345678", ClassID: "cinema-tickets", Origins: []string{"https://tickets.example"}}

func tickets() []Ticket {
	start := time.Date(2026, 11, 29, 20, 30, 0, 0, time.FixedZone("CET", 3600))
	return []Ticket{
		{Serial: "0001-100002-1", Film: "Otters of the Elbe", Row: "F", Seat: "14", Area: "Standard", Barcode: "TKT1 booking=WBK100002 line=1 seat=F-14 n=100002 c=1 sig=AAAA", Booking: "100002", Start: start, Active: true},
		{Serial: "0001-100002-2", Film: "Otters of the Elbe", Row: "F", Seat: "15", Barcode: "TKT1 booking=WBK100002 line=2 seat=F-15 n=100002 c=1 sig=BBBB", Booking: "100002", Start: start, Active: false},
	}
}

// savedObjects verifies link's JWT with the account's public key and returns its objects.
func savedObjects(t *testing.T, sa ServiceAccount, link string) []any {
	t.Helper()
	raw, ok := strings.CutPrefix(link, "https://pay.google.com/gp/v/save/")
	if !ok {
		t.Fatalf("not a save link: %s", link)
	}
	tok, err := jwt.Parse(raw, func(*jwt.Token) (any, error) { return &sa.Key.PublicKey, nil }, jwt.WithValidMethods([]string{"RS256"}), jwt.WithAudience("google"), jwt.WithIssuer(sa.Email))
	if err != nil {
		t.Fatalf("the save link's JWT does not verify: %v", err)
	}
	c := tok.Claims.(jwt.MapClaims)
	if c["typ"] != "savetowallet" {
		t.Errorf("typ %v", c["typ"])
	}
	return c["payload"].(map[string]any)["eventTicketObjects"].([]any)
}

func TestSaveURLHoldsOneObjectPerTicketAndVerifies(t *testing.T) {
	sa, err := GenerateTestServiceAccount(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	link, err := issuer.SaveURL(sa, tickets(), "en", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	objs := savedObjects(t, sa, link)
	if len(objs) != 2 {
		t.Fatalf("%d objects for 2 tickets", len(objs))
	}
	for i, want := range []struct{ id, seat, row, state, code string }{
		{"3388000000012345678.0001-100002-1", "14", "F", "ACTIVE", tickets()[0].Barcode},
		{"3388000000012345678.0001-100002-2", "15", "F", "INACTIVE", tickets()[1].Barcode},
	} {
		o := objs[i].(map[string]any)
		seat := o["seatInfo"].(map[string]any)
		value := func(k string) any { return seat[k].(map[string]any)["defaultValue"].(map[string]any)["value"] }
		bc := o["barcode"].(map[string]any)
		if o["id"] != want.id || o["classId"] != "3388000000012345678.cinema-tickets" || o["state"] != want.state ||
			value("seat") != want.seat || value("row") != want.row || bc["type"] != "QR_CODE" || bc["value"] != want.code {
			t.Errorf("object %d = %v", i, o)
		}
		if iv := o["validTimeInterval"].(map[string]any); iv["start"].(map[string]any)["date"] != "2026-11-29T20:30:00+01:00" {
			t.Errorf("object %d valid from %v", i, iv["start"])
		}
	}
}

func TestSaveURLSignedByAnotherKeyDoesNotVerify(t *testing.T) {
	sa, _ := GenerateTestServiceAccount(t.TempDir())
	other, _ := GenerateTestServiceAccount(t.TempDir())
	link, err := issuer.SaveURL(other, tickets(), "en", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	raw := strings.TrimPrefix(link, "https://pay.google.com/gp/v/save/")
	if _, err := jwt.Parse(raw, func(*jwt.Token) (any, error) { return &sa.Key.PublicKey, nil }); err == nil {
		t.Fatal("a link signed with another key verified")
	}
}

func TestTestServiceAccountIsKept(t *testing.T) {
	dir := t.TempDir()
	a, err := GenerateTestServiceAccount(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := GenerateTestServiceAccount(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Key.Equal(b.Key) || a.Email != b.Email {
		t.Fatal("the test service account changed between starts")
	}
	fi, err := os.Stat(filepath.Join(dir, "google-wallet-test-service-account.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file %v %v", fi, err)
	}
}

func TestBadKeysAndTickets(t *testing.T) {
	for name, data := range map[string]string{
		"not JSON":      "-----BEGIN PRIVATE KEY-----",
		"no e-mail":     `{"private_key": "x"}`,
		"not a PEM key": `{"client_email": "a@b.c", "private_key": "nonsense"}`,
	} {
		if _, err := ParseServiceAccount([]byte(data)); !errors.Is(err, ErrBadKey) {
			t.Errorf("%s: %v, want ErrBadKey", name, err)
		}
	}
	if _, err := issuer.SaveURL(ServiceAccount{}, tickets(), "en", time.Now()); !errors.Is(err, ErrBadKey) {
		t.Errorf("no key: %v", err)
	}
	sa, _ := GenerateTestServiceAccount(t.TempDir())
	for name, tk := range map[string]Ticket{
		"id with a space": {Serial: "0001 100002", Barcode: "x"},
		"empty id":        {Serial: "", Barcode: "x"},
		"no barcode":      {Serial: "0001-100002-1"},
	} {
		if _, err := issuer.SaveURL(sa, []Ticket{tk}, "en", time.Now()); !errors.Is(err, ErrBadTicket) {
			t.Errorf("%s: %v, want ErrBadTicket", name, err)
		}
	}
}

// TestObjectsSpeakGooglesJSON: the objects marshal to the JSON Google's own generated client
// (google.golang.org/api/walletobjects/v1) made of the same tickets, kept in
// testdata/objects.golden.json, key for key.
func TestObjectsSpeakGooglesJSON(t *testing.T) {
	var objs []*Object
	for _, tk := range tickets() {
		o, err := issuer.ObjectOf(tk, "de")
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, o)
	}
	ours, err := json.Marshal(objs)
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(filepath.Join("testdata", "objects.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got, want any
	if err := json.Unmarshal(ours, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(golden, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("objects as JSON:\n%s\nwant (Google's client):\n%s", ours, golden)
	}
}
