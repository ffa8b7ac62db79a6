package walletflow_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// stringsEntry is one line of a .strings file: "key" = "value";
var stringsEntry = regexp.MustCompile(`^"((?:[^"\\]|\\.)*)" = "((?:[^"\\]|\\.)*)";$`)

// readStrings reads a pass.strings file into its entries.
func readStrings(t *testing.T, data []byte) map[string]string {
	t.Helper()
	unquote := strings.NewReplacer(`\"`, `"`, `\n`, "\n", `\t`, "\t", `\r`, "\r", `\\`, `\`)
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		m := stringsEntry.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("not a .strings line: %q", line)
		}
		out[unquote.Replace(m[1])] = unquote.Replace(m[2])
	}
	return out
}

// passFields are the pass's fields by key, as Wallet shows them with the localization of lang
// (its <lang>.lproj/pass.strings): each label and value that is a key there reads as its entry.
func passFields(t *testing.T, files map[string][]byte, lang string) map[string][2]string {
	t.Helper()
	data, ok := files[lang+".lproj/pass.strings"]
	if !ok {
		t.Fatalf("the pass has no %s.lproj/pass.strings (files: %v)", lang, keysOf(files))
	}
	loc := readStrings(t, data)
	var p struct {
		EventTicket map[string][]struct{ Key, Label, Value string } `json:"eventTicket"`
	}
	if err := json.Unmarshal(files["pass.json"], &p); err != nil {
		t.Fatal(err)
	}
	read := func(s string) string {
		if v, ok := loc[s]; ok {
			return v
		}
		return s
	}
	out := map[string][2]string{}
	for _, fields := range p.EventTicket {
		for _, f := range fields {
			out[f.Key] = [2]string{read(f.Label), read(f.Value)}
		}
	}
	return out
}

func keysOf(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestAPassBoughtInGermanReadsGerman: the Apple pass of a booking bought in German carries
// en.lproj and de.lproj pass.strings; read with de.lproj its labels, show time and seats are
// German, with en.lproj English; pass.json itself (what a phone in neither language reads) is in
// the language of the purchase. The pass of the same booking asked for in English reads English.
func TestAPassBoughtInGermanReadsGerman(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	setLang := h.Speaking("de")
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	ret := h.ActAtProvider(h.PressPay(), "pay")
	doc := h.Doc(h.WaitForConfirmation(ret, 5*time.Second))
	apple, ok := doc.Find(`[data-testid="add-to-apple-wallet"]`).First().Attr("href")
	if !ok {
		t.Fatal("the German confirmation offers no Apple Wallet pass")
	}
	resp, body := h.Get(apple)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("pass: %d %.200s", resp.StatusCode, body)
	}
	files := unzip(t, []byte(body))

	german := passFields(t, files, "de")
	for key, want := range map[string][2]string{"film": {"FILM", ""}, "start": {"VORSTELLUNG", `^(Mo|Di|Mi|Do|Fr|Sa|So)\., \d+\. \S+, \d\d:\d\d$`}, "screen": {"SAAL", ""},
		"seats": {"PLÄTZE", `^Reihe \w+, Platz \d+, Reihe \w+, Platz \d+$`}, "booking": {"BUCHUNG", ""}, "back-seats": {"Plätze", `^Reihe \w+, Platz \d+\nReihe \w+, Platz \d+$`}, "back-booking": {"Buchungsnummer", ""}} {
		got := german[key]
		if got[0] != want[0] || !regexp.MustCompile(want[1]).MatchString(got[1]) {
			t.Errorf("de.lproj: %s reads %q: %q, want %q: %s", key, got[0], got[1], want[0], want[1])
		}
	}
	english := passFields(t, files, "en")
	for key, want := range map[string][2]string{"start": {"SHOWTIME", `^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d+ \S+, \d\d:\d\d$`}, "seats": {"SEATS", `^Row \w+, seat \d+, Row \w+, seat \d+$`}, "back-seats": {"Seats", `^Row \w+, seat \d+\nRow \w+, seat \d+$`}} {
		got := english[key]
		if got[0] != want[0] || !regexp.MustCompile(want[1]).MatchString(got[1]) {
			t.Errorf("en.lproj: %s reads %q: %q, want %q: %s", key, got[0], got[1], want[0], want[1])
		}
	}
	// Without a localization of the phone's language, pass.json's own words: German.
	if raw := string(files["pass.json"]); !strings.Contains(raw, `"label": "VORSTELLUNG"`) || strings.Contains(raw, "SHOWTIME") {
		t.Errorf("pass.json of the German purchase is not German: %s", raw)
	}

	// The Google objects' film heading: German first, English among its translations.
	google, ok := doc.Find(`[data-testid="add-to-google-wallet"]`).First().Attr("href")
	if !ok {
		t.Fatal("the German confirmation offers no Google Wallet link")
	}
	resp, _ = h.Get(google)
	raw, _ := strings.CutPrefix(resp.Header.Get("Location"), "https://pay.google.com/gp/v/save/")
	_, key := bfftest.WalletIdentities(t)
	tok, err := jwt.Parse(raw, func(*jwt.Token) (any, error) { return &key.Key.PublicKey, nil }, jwt.WithValidMethods([]string{"RS256"}))
	if err != nil {
		t.Fatalf("google link %q: %v", resp.Header.Get("Location"), err)
	}
	for _, o := range tok.Claims.(jwt.MapClaims)["payload"].(map[string]any)["eventTicketObjects"].([]any) {
		module := o.(map[string]any)["textModulesData"].([]any)[0].(map[string]any)
		header, _ := json.Marshal(module["localizedHeader"])
		if !strings.Contains(string(header), `"defaultValue":{"language":"de","value":"Film"}`) || !strings.Contains(string(header), `{"language":"en","value":"Film"}`) {
			t.Errorf("the Google object's film heading is not German with an English translation: %s", header)
		}
	}

	setLang("en")
	resp, body = h.Get(apple)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("English pass: %d", resp.StatusCode)
	}
	files = unzip(t, []byte(body))
	if raw := string(files["pass.json"]); !strings.Contains(raw, `"label": "SHOWTIME"`) || !strings.Contains(raw, "Row ") {
		t.Errorf("pass.json asked for in English is not English: %s", raw)
	}
	if got := passFields(t, files, "en")["start"]; got[0] != "SHOWTIME" {
		t.Errorf("the English pass reads %q with en.lproj", got)
	}
	if got := passFields(t, files, "de")["start"]; got[0] != "VORSTELLUNG" {
		t.Errorf("the English pass reads %q with de.lproj", got)
	}
}
