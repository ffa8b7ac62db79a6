package words

import (
	"github.com/cinemabff/cinemabff/internal/i18n"
)

// OtherCinema says, in l's language, why a booking or a ticket of the cinema named there is
// refused at a counter or kiosk that stands in the cinema named here: it is not looked up,
// changed, paid for or printed here. A guest at a kiosk is sent to that cinema; staff read
// what happened.
func OtherCinema(l *i18n.Localizer, there, here string, staff bool) string {
	if staff {
		return l.T("ui.other_cinema.staff", "There", there, "Here", here)
	}
	return l.T("ui.other_cinema.guest", "There", there, "Here", here)
}
