package wallet_test

import (
	"archive/zip"
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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
	for _, seat := range []string{"Row F · Seat 14", "Row F · Seat 15"} {
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
