package walletflow_test

import (
	"archive/zip"
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// unzip reads a .pkpass into its files.
func unzip(t *testing.T, body []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name], _ = io.ReadAll(rc)
		rc.Close()
	}
	return out
}

func TestBookingPageOffersAnAppleWalletPassOfTheBookingAsItIs(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	doc := h.Find(bfftest.BkPaid2)
	link, ok := doc.Find(`[data-testid="add-to-apple-wallet"]`).Attr("href")
	if !ok {
		t.Fatal("the booking page offers no Add to Apple Wallet")
	}
	visitor := h.Browser() // a phone reading the e-mail: no visit, only the link
	resp, body := visitor.Get(link)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/vnd.apple.pkpass" {
		t.Fatalf("pass: %d %q %.200s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	files := unzip(t, []byte(body))
	var manifest map[string]string
	if err := json.Unmarshal(files["manifest.json"], &manifest); err != nil {
		t.Fatalf("manifest.json: %v", err)
	}
	for name, data := range files {
		if name == "manifest.json" || name == "signature" {
			continue
		}
		sum := sha1.Sum(data)
		if manifest[name] != hex.EncodeToString(sum[:]) {
			t.Errorf("manifest's SHA-1 of %s is %q, the file's %x", name, manifest[name], sum)
		}
	}
	var pass struct {
		EventTicket map[string][]struct{ Key, Label, Value string } `json:"eventTicket"`
		Barcodes    []struct{ Format, Message string }              `json:"barcodes"`
	}
	if err := json.Unmarshal(files["pass.json"], &pass); err != nil || pass.EventTicket == nil {
		t.Fatalf("pass.json has no eventTicket: %v %s", err, files["pass.json"])
	}
	codes := bfftest.TicketCodes(t, h, bfftest.BkPaid2)
	if len(pass.Barcodes) != 1 || pass.Barcodes[0].Format != "PKBarcodeFormatQR" || pass.Barcodes[0].Message != codes[0] {
		t.Errorf("barcodes %+v, want the QR of %q", pass.Barcodes, codes[0])
	}
	var shown []string
	for _, fields := range pass.EventTicket {
		for _, f := range fields {
			shown = append(shown, f.Value)
		}
	}
	for _, seat := range []string{"Row F, seat 14", "Row F, seat 15"} {
		if !slices.ContainsFunc(shown, func(v string) bool { return strings.Contains(v, seat) }) {
			t.Errorf("pass shows %q, not %s", shown, seat)
		}
	}
	// The signature is a detached PKCS#7 over the manifest that openssl accepts.
	dir := t.TempDir()
	for _, name := range []string{"manifest.json", "signature"} {
		if err := os.WriteFile(filepath.Join(dir, name), files[name], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := exec.LookPath("openssl"); err == nil {
		cmd := exec.Command("openssl", "smime", "-verify", "-binary", "-inform", "DER", "-noverify", "-content", "manifest.json", "-in", "signature", "-out", os.DevNull)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("openssl refuses the signature: %v: %s", err, out)
		}
	} else if os.Getenv("CI") != "" {
		t.Fatal("openssl is needed to check the pass's signature")
	} else {
		t.Log("#### openssl missing: the pass's signature was not checked with it")
	}
}

func TestGoogleWalletLinkHoldsEveryTicket(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	doc := h.Find(bfftest.BkPaid2)
	link, ok := doc.Find(`[data-testid="add-to-google-wallet"]`).Attr("href")
	if !ok {
		t.Fatal("the booking page offers no Add to Google Wallet")
	}
	resp, body := h.Browser().Get(link)
	to := resp.Header.Get("Location")
	raw, ok := strings.CutPrefix(to, "https://pay.google.com/gp/v/save/")
	if resp.StatusCode != http.StatusSeeOther || !ok {
		t.Fatalf("google link: %d %q %.200s", resp.StatusCode, to, body)
	}
	_, key := bfftest.WalletIdentities(t)
	tok, err := jwt.Parse(raw, func(*jwt.Token) (any, error) { return &key.Key.PublicKey, nil }, jwt.WithValidMethods([]string{"RS256"}))
	if err != nil {
		t.Fatalf("the save link's JWT does not verify with the service account's key: %v", err)
	}
	objs := tok.Claims.(jwt.MapClaims)["payload"].(map[string]any)["eventTicketObjects"].([]any)
	codes := bfftest.TicketCodes(t, h, bfftest.BkPaid2)
	if len(objs) != len(codes) {
		t.Fatalf("%d objects for %d tickets", len(objs), len(codes))
	}
	for i, o := range objs {
		m := o.(map[string]any)
		if m["barcode"].(map[string]any)["value"] != codes[i] || m["seatInfo"] == nil {
			t.Errorf("object %d: %v", i, m)
		}
	}
}

func TestWalletLinkForAnotherBookingShowsNothing(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	link, _ := h.Find(bfftest.BkPaid2).Find(`[data-testid="add-to-apple-wallet"]`).Attr("href")
	forged := strings.Replace(link, "100002", "100004", 1)
	resp, body := h.Browser().Get(forged)
	// The page says the link does not work, and nothing of the booking it names.
	if main := h.Doc(body).Find("main").Text(); resp.StatusCode != http.StatusNotFound || !strings.Contains(main, "This wallet link does not work") || strings.Contains(main, "100004") {
		t.Fatalf("a forged link: %d %s", resp.StatusCode, h.Doc(body).Find("main").Text())
	}
}

// passOf fetches the booking's pass through its wallet link and reads its pass.json.
func passOf(t *testing.T, h *bfftest.Harness, link string) (serial, passType, ws, token string, seats []string) {
	t.Helper()
	resp, body := h.Browser().Get(link)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("pass: %d %.200s", resp.StatusCode, body)
	}
	return readPass(t, []byte(body))
}

func readPass(t *testing.T, body []byte) (serial, passType, ws, token string, seats []string) {
	t.Helper()
	var p struct {
		SerialNumber, PassTypeIdentifier, WebServiceURL, AuthenticationToken string
		EventTicket                                                          map[string][]struct{ Value string }
	}
	if err := json.Unmarshal(unzip(t, body)["pass.json"], &p); err != nil {
		t.Fatal(err)
	}
	for _, fs := range p.EventTicket {
		for _, f := range fs {
			if strings.Contains(f.Value, "seat") {
				seats = append(seats, f.Value)
			}
		}
	}
	return p.SerialNumber, p.PassTypeIdentifier, p.WebServiceURL, p.AuthenticationToken, seats
}

// call speaks to the PassKit web service as Wallet on a phone does.
func call(t *testing.T, method, url, token, body string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "ApplePass "+token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func TestPassFollowsASeatSwapAndThePhoneIsTold(t *testing.T) {
	h := bfftest.SwapHarness(t, bfftest.BkPaid2)
	link, _ := h.Find(bfftest.BkPaid2).Find(`[data-testid="add-to-apple-wallet"]`).Attr("href")
	serial, passType, ws, token, seats := passOf(t, h, link)
	if ws == "" || len(token) < 16 || !strings.HasPrefix(ws, h.TS.URL) {
		t.Fatalf("pass has webServiceURL %q and a token of %d characters", ws, len(token))
	}
	const device, pushToken = "device-of-paid2", "0a1b2c3d4e5f60718293a4b5c6d7e8f9"
	reg := ws + "/v1/devices/" + device + "/registrations/" + passType + "/" + serial
	if resp, b := call(t, "POST", reg, token+"x", `{"pushToken":"`+pushToken+`"}`, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a wrong token registers: %d %s", resp.StatusCode, b)
	}
	if resp, b := call(t, "POST", reg, token, `{"pushToken":"`+pushToken+`"}`, nil); resp.StatusCode != http.StatusCreated {
		t.Fatalf("register: %d %s", resp.StatusCode, b)
	}
	passURL := ws + "/v1/passes/" + passType + "/" + serial
	resp, _ := call(t, "GET", passURL, token, "", nil)
	before := resp.Header.Get("Last-Modified")
	if resp.StatusCode != http.StatusOK || before == "" {
		t.Fatalf("latest pass: %d, Last-Modified %q", resp.StatusCode, before)
	}
	if resp, _ := call(t, "GET", passURL, token, "", map[string]string{"If-Modified-Since": before}); resp.StatusCode != http.StatusNotModified {
		t.Fatalf("an unchanged pass: %d, want 304", resp.StatusCode)
	}
	// The same person saves the tickets to Google Wallet too.
	googleLink, _ := h.Find(bfftest.BkPaid2).Find(`[data-testid="add-to-google-wallet"]`).Attr("href")
	if resp, body := h.Browser().Get(googleLink); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("google link: %d %.200s", resp.StatusCode, body)
	}
	time.Sleep(1100 * time.Millisecond) // Last-Modified has whole seconds

	bfftest.SwapThrough(t, h, bfftest.BkPaid2, []string{"1", "2"}, []string{bfftest.Seat(1, 5, 3), bfftest.Seat(1, 5, 4)}) // F4, F5

	// The phones are told first and the Google objects patched after, both after the swap's
	// answer: wait for the last of them.
	patched := func() bool {
		for line := 1; line <= 2; line++ {
			if len(h.Google.Patches(fmt.Sprintf("%s.0001-%d-%d", bfftest.TestGoogleIssuer, bfftest.BkPaid2, line))) == 0 {
				return false
			}
		}
		return true
	}
	deadline := time.Now().Add(10 * time.Second)
	for (len(h.Pushes.PushesFor(pushToken)) == 0 || !patched()) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := len(h.Pushes.PushesFor(pushToken)); n != 1 {
		t.Fatalf("the push stand-in got %d pushes for the device, want 1", n)
	}
	resp, b := call(t, "GET", ws+"/v1/devices/"+device+"/registrations/"+passType, "", "", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), serial) {
		t.Fatalf("updated serials: %d %s", resp.StatusCode, b)
	}
	resp, b = call(t, "GET", passURL, token, "", map[string]string{"If-Modified-Since": before})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the changed pass with the old If-Modified-Since: %d, want 200", resp.StatusCode)
	}
	if after := resp.Header.Get("Last-Modified"); after == before {
		t.Errorf("Last-Modified stayed %q", after)
	}
	_, _, _, _, now := readPass(t, b)
	if shown := strings.Join(now, "\n"); !strings.Contains(shown, "Row F, seat 4") || strings.Contains(shown, "seat 14") || slices.Equal(now, seats) {
		t.Errorf("the pass shows %q after the swap (before: %q)", now, seats)
	}

	// Google Wallet was asked to patch the moved ticket's object: the new seat, its new code.
	codes := bfftest.TicketCodes(t, h, bfftest.BkPaid2)
	for line, seat := range map[int]string{1: "4", 2: "5"} {
		id := fmt.Sprintf("%s.0001-%d-%d", bfftest.TestGoogleIssuer, bfftest.BkPaid2, line)
		patches := h.Google.Patches(id)
		if len(patches) != 1 {
			t.Fatalf("the Google stand-in got %d patches of %s, want 1 (calls: %+v)", len(patches), id, h.Google.Calls())
		}
		o := patches[0]
		if o.State != "ACTIVE" || o.SeatInfo == nil || o.SeatInfo.Seat.DefaultValue.Value != seat || o.SeatInfo.Row.DefaultValue.Value != "F" ||
			o.Barcode == nil || o.Barcode.Value != codes[line-1] {
			t.Errorf("the patch of %s: state %s, seat %+v, barcode %+v (codes now %q)", id, o.State, o.SeatInfo, o.Barcode, codes)
		}
	}
}

func TestConfirmationMailOffersTheWalletPassesOnAnyPhone(t *testing.T) {
	h := bfftest.SwapHarness(t, bfftest.BkPaid2)
	bfftest.SwapThrough(t, h, bfftest.BkPaid2, []string{"1", "2"}, []string{bfftest.Seat(1, 5, 3), bfftest.Seat(1, 5, 4)}) // F4, F5
	m := h.OneMail("swap")
	doc := h.Doc(m.HTML)
	apple, ok := doc.Find(`[data-testid="mail-apple-wallet"]`).Attr("href")
	if !ok || !strings.Contains(m.Text, apple) {
		t.Fatalf("the swap's e-mail offers no Add to Apple Wallet (HTML link %q; text:\n%s)", apple, m.Text)
	}
	if _, ok := doc.Find(`[data-testid="mail-google-wallet"]`).Attr("href"); !ok {
		t.Error("the swap's e-mail offers no Add to Google Wallet")
	}
	u, err := url.Parse(apple)
	if err != nil || u.Host == "" || u.Hostname() != "127.0.0.1" {
		t.Fatalf("the mail's link is not an absolute address of the site: %q", apple)
	}
	path := u.Path
	// Another phone, without the visit that made the change, gets the booking as it is now.
	_, _, _, _, seats := passOf(t, h, path)
	if shown := strings.Join(seats, "\n"); !strings.Contains(shown, "Row F, seat 4") || strings.Contains(shown, "seat 14") {
		t.Errorf("the mail's pass shows %q", seats)
	}
}

func TestPurchaseConfirmationOffersTheWalletPasses(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true})
	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	ret := h.ActAtProvider(h.PressPay(), "pay")
	doc := h.Doc(h.WaitForConfirmation(ret, 5*time.Second))
	number := strings.TrimSpace(doc.Find(`[data-testid="booking-number"]`).Text())
	apple, ok := doc.Find(`[data-testid="confirmation-actions"] [data-testid="add-to-apple-wallet"]`).Attr("href")
	if !ok || !strings.Contains(apple, "."+number+".") {
		t.Fatalf("the confirmation of booking %s offers Add to Apple Wallet %q", number, apple)
	}
	if google, ok := doc.Find(`[data-testid="add-to-google-wallet"]`).Attr("href"); !ok || !strings.HasSuffix(google, "/google") {
		t.Fatalf("the confirmation offers Add to Google Wallet %q", google)
	}
	_, _, _, _, seats := passOf(t, h, apple)
	if len(seats) == 0 {
		t.Fatal("the new booking's pass shows no seat")
	}
	m := h.OneMail("purchase")
	if mailed, ok := h.Doc(m.HTML).Find(`[data-testid="mail-apple-wallet"]`).Attr("href"); !ok || !strings.HasSuffix(mailed, apple) {
		t.Errorf("the purchase e-mail's Add to Apple Wallet is %q, the page's %q", mailed, apple)
	}
}
