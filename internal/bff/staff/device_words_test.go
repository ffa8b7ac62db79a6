package staff_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/device"
)

// TestDevicePageNamesItsReaderAndLanguageInThePagesWords: the device page of a counter with a
// card reader names the reader by its label, never by the provider's id, and offers the site's
// default language named in the page's language ("Standard der Website (Englisch)", not
// "(English)").
func TestDevicePageNamesItsReaderAndLanguageInThePagesWords(t *testing.T) {
	h := bfftest.CounterHarness(t)
	h.EnrolWithReader(device.Counter)
	readers := h.Prov.Readers()
	if len(readers) != 1 || readers[0].Label == "" {
		t.Fatalf("readers after enrolling: %+v", readers)
	}
	h.SignInAs(bfftest.TestSupervisor, bfftest.TestSupervisorPassword)
	for _, tc := range []struct {
		header http.Header
		site   string
	}{
		{bfftest.GermanBrowser, "Standard der Website (Englisch)"},
		{bfftest.AcceptEnglish, "The site's default (English)"},
	} {
		_, body := h.Do("GET", "/device", nil, tc.header)
		doc := h.Doc(body)
		if got := strings.TrimSpace(doc.Find(`[data-testid="device-reader"]`).Text()); got != readers[0].Label {
			t.Errorf("the device page names its reader %q, want its label %q (id %s)", got, readers[0].Label, readers[0].ID)
		}
		if got := strings.TrimSpace(doc.Find(`#device-language option[value=""]`).Text()); got != tc.site {
			t.Errorf("the site's default language reads %q, want %q", got, tc.site)
		}
	}
}
