package components

import (
	"context"
	"strings"

	"github.com/cinemabff/cinemabff/internal/i18n"
)

// TicketsSpeech is what a kiosk in speech mode says of tickets on screen: the film, the time,
// the screen and the seats ("" without tickets).
func TicketsSpeech(ctx context.Context, v TicketsView) string {
	if len(v.Cards) == 0 {
		return ""
	}
	first := v.Cards[0]
	var seats []string
	for _, c := range v.Cards {
		if c.SeatText != "" {
			seats = append(seats, c.SeatText)
		}
	}
	return i18n.T(ctx, "speech.collected", "Film", first.Film, "Time", strings.TrimSpace(first.Date+", "+first.Time), "Screen", first.Screen,
		"Seats", strings.Join(seats, "; "))
}
