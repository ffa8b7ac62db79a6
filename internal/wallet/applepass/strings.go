package applepass

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Words are the pass's words in one language: its field labels, and how its seats and show
// time read. Wallet reads a pass's words through its localizations: pass.json carries the words
// of the first language as keys, and <lang>.lproj/pass.strings maps each key to the words of
// that language, so the pass reads in the phone's language where it has one, and otherwise in
// the first (the language it was bought in).
type Words struct {
	Lang string // the lproj's language code: "en", "de"

	Film, Showtime, Screen, Seats, Booking                             string // front labels
	BackFilm, BackShowtime, BackScreen, BackSeats, BackBooking, Cinema string // back labels

	Start, StartWithZone string   // the show time as the front and the back show it
	SeatTexts            []string // each seat as it reads ("Row F, seat 12"), in the order of Pass.Seats
}

// englishWords are the words of a pass without Words of its own.
func englishWords(p Pass) Words {
	layout := p.TimeFormat
	if layout == "" {
		layout = DefaultTimeFormat
	}
	start := p.ShowStart.In(p.TimeZone)
	w := Words{Lang: "en", Film: "FILM", Showtime: "SHOWTIME", Screen: "SCREEN", Seats: "SEATS", Booking: "BOOKING",
		BackFilm: "Film", BackShowtime: "Show time", BackScreen: "Screen", BackSeats: "Seats", BackBooking: "Booking number", Cinema: "Cinema",
		Start: start.Format(layout), StartWithZone: start.Format(layout + " MST")} // the zone on the back, for a reader in another zone
	for _, s := range p.Seats {
		w.SeatTexts = append(w.SeatTexts, s.String())
	}
	return w
}

// texts are the words of w that pass.json carries, in a fixed order (labels, then the values
// that are words: the show time and the seats).
func (w Words) texts() []string {
	return []string{w.Film, w.Showtime, w.Screen, w.Seats, w.Booking,
		w.BackFilm, w.BackShowtime, w.BackScreen, w.BackSeats, w.BackBooking, w.Cinema,
		w.Start, w.StartWithZone, strings.Join(w.SeatTexts, ", "), strings.Join(w.SeatTexts, "\n")}
}

// lprojName is a language code Wallet finds a localization folder by.
var lprojName = regexp.MustCompile(`^[a-z]{2,3}(-[A-Za-z]{2,4})?$`)

// passStrings are the localizations of a pass: "<lang>.lproj/pass.strings" for each of its
// Words, mapping the keys (the first Words' texts, as pass.json carries them) to that
// language's. Nothing for a pass without Words.
func passStrings(p Pass) (map[string][]byte, error) {
	if len(p.Words) == 0 {
		return nil, nil
	}
	keys := p.Words[0].texts()
	out := make(map[string][]byte, len(p.Words))
	for _, w := range p.Words {
		if !lprojName.MatchString(w.Lang) {
			return nil, fmt.Errorf("pass %q: localization %q: %w", p.SerialNumber, w.Lang, ErrInvalidPass)
		}
		if len(w.SeatTexts) != len(p.Words[0].SeatTexts) {
			return nil, fmt.Errorf("pass %q: %s has %d seats, %s %d: %w", p.SerialNumber, w.Lang, len(w.SeatTexts), p.Words[0].Lang, len(p.Words[0].SeatTexts), ErrInvalidPass)
		}
		entries := map[string]string{}
		for i, text := range w.texts() {
			if keys[i] != "" {
				entries[keys[i]] = text
			}
		}
		out[w.Lang+".lproj/pass.strings"] = stringsFile(entries)
	}
	return out, nil
}

// stringsFile writes entries as a .strings file ("key" = "value";), in UTF-8, sorted by key.
func stringsFile(entries map[string]string) []byte {
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s = %s;\n", quoteStrings(k), quoteStrings(entries[k]))
	}
	return []byte(b.String())
}

// stringsEscaper escapes what a .strings literal cannot carry as it is.
var stringsEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`, "\r", `\r`)

func quoteStrings(s string) string { return `"` + stringsEscaper.Replace(s) + `"` }
