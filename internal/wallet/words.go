package wallet

import (
	"slices"

	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/wallet/applepass"
	"github.com/cinemabff/cinemabff/internal/wallet/googlepass"
)

// passWords are the pass's words in every language of the site, lang's first (the language
// the pass was asked in; "" or another: the site's fallback first). Without Langs the pass
// has its English words only.
func (s *Service) passWords(p applepass.Pass, lang string) []applepass.Words {
	if s.Langs == nil {
		return nil
	}
	first := s.Langs.ForCode(lang)
	out := []applepass.Words{passWordsIn(first, p)}
	for _, t := range i18n.Languages {
		if l := s.Langs.For(t); l.Tag() != first.Tag() && !slices.ContainsFunc(out, func(w applepass.Words) bool { return w.Lang == l.Lang() }) {
			out = append(out, passWordsIn(l, p))
		}
	}
	return out
}

// passWordsIn are the pass's words in l: the labels, the show time in the cinema's zone (with
// the zone's abbreviation on the back, for a reader in another zone) and each seat.
func passWordsIn(l *i18n.Localizer, p applepass.Pass) applepass.Words {
	start := l.Time(p.ShowStart, p.TimeZone, i18n.DateTimeShort)
	w := applepass.Words{Lang: l.Lang(),
		Film: l.T("wallet.pass.film"), Showtime: l.T("wallet.pass.showtime"), Screen: l.T("wallet.pass.screen"),
		Seats: l.T("wallet.pass.seats"), Booking: l.T("wallet.pass.booking"),
		BackFilm: l.T("wallet.pass.back_film"), BackShowtime: l.T("wallet.pass.back_showtime"), BackScreen: l.T("wallet.pass.back_screen"),
		BackSeats: l.T("wallet.pass.back_seats"), BackBooking: l.T("wallet.pass.back_booking"), Cinema: l.T("wallet.pass.back_cinema"),
		Start: start, StartWithZone: start + " " + p.ShowStart.In(p.TimeZone).Format("MST")}
	for _, seat := range p.Seats {
		w.SeatTexts = append(w.SeatTexts, l.T("common.seat", "Row", seat.Row, "Seat", seat.Number))
	}
	return w
}

// filmHeader is the Google object's heading of the film in every language of the site, lang's
// first (nil without Langs: the object's own English).
func (s *Service) filmHeader(lang string) []googlepass.Translation {
	if s.Langs == nil {
		return nil
	}
	first := s.Langs.ForCode(lang)
	out := []googlepass.Translation{{Lang: first.Lang(), Value: first.T("wallet.pass.back_film")}}
	for _, t := range i18n.Languages {
		if l := s.Langs.For(t); l.Tag() != first.Tag() {
			out = append(out, googlepass.Translation{Lang: l.Lang(), Value: l.T("wallet.pass.back_film")})
		}
	}
	return out
}
