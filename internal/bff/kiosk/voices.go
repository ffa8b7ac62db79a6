package kiosk

import (
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
)

// The kiosk's voices, told to the operators. The audio guide speaks with the voices of the
// kiosk's own operating system (speech.js); a kiosk without one for a language is silent in
// it, which a blind guest cannot report. The device page shows it to staff standing at the
// kiosk; the attract screen also tells the service (reportVoices), which writes it in its log
// once per kiosk and answer, so the operator reads it where the rest of the site's start-up is.

// voiceReports keeps the last answer of each kiosk, so that an attract screen shown after
// every visit writes a line only when the answer changes (or the service has restarted).
// The zero value is ready to use.
type voiceReports struct {
	mu   sync.Mutex
	last map[string]string // device id -> the languages without a voice, sorted, joined
}

// changed records missing as the kiosk's answer and reports whether it differs from the last.
func (r *voiceReports) changed(deviceID string, missing []string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last == nil {
		r.last = map[string]string{}
	}
	key := strings.Join(missing, " ")
	if old, ok := r.last[deviceID]; ok && old == key {
		return false
	}
	r.last[deviceID] = key
	return true
}

// reportVoices takes an enrolled kiosk's answer to "is there a voice for each of the site's
// languages?" (form fields has and missing, each a language code, repeated) and logs it: a
// warning naming the languages the audio guide cannot speak, or that every one has a voice.
// Its caller is a script, not a person: a refusal is a status and a line of text.
func (h *Handler) reportVoices(c echo.Context) error {
	if !web.IsKiosk(c) {
		return c.String(http.StatusForbidden, "only an enrolled kiosk reports its voices")
	}
	form, err := c.FormParams()
	if err != nil {
		return c.String(http.StatusBadRequest, "the report could not be read")
	}
	known := h.languages(c)
	has, missing := form["has"], form["missing"]
	for _, lang := range append(slices.Clone(has), missing...) {
		if !slices.Contains(known, lang) {
			return c.String(http.StatusBadRequest, "the report names a language the site does not have: "+lang)
		}
	}
	if len(has)+len(missing) == 0 {
		return c.String(http.StatusBadRequest, "the report names no language")
	}
	slices.Sort(missing)
	dev := web.DeviceOf(c)
	if h.voices.changed(dev.ID, missing) {
		logVoices(h.Logger, dev.ID, dev.Name, has, missing)
	}
	return c.NoContent(http.StatusNoContent)
}

// languages are the site's languages, as the header's switch offers them.
func (h *Handler) languages(c echo.Context) []string {
	var out []string
	for _, ll := range h.Site.LanguageLinks(c) {
		out = append(out, ll.Lang)
	}
	return out
}

func logVoices(log *slog.Logger, deviceID, name string, has, missing []string) {
	if len(missing) == 0 {
		log.Info("kiosk: a voice for every language", "device", deviceID, "name", name, "languages", has)
		return
	}
	log.Warn("kiosk: no voice for these languages, the audio guide stays silent in them; install a voice (README: the kiosk's set-up)",
		"device", deviceID, "name", name, "missing", missing, "has", has)
}
