package words

import (
	"slices"
	"strings"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/views/components"
)

// AreaRule says which seating areas tickets of the given categories may sit in, in l's words.
func AreaRule(l *i18n.Localizer, plan cinema.SeatPlan, ticketCats []string) string {
	var names []string
	for _, c := range ticketCats {
		if n := plan.AreaCategoryName(c); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) == 1 {
		return l.T("booking.area_rule", "Area", names[0])
	}
	return l.T("booking.area_rule_several", "Areas", strings.Join(names, ", "))
}

// AreaProblem checks chosen seats against the area categories of the tickets that get them
// (one category per ticket): "" when every category gets as many seats as it has tickets,
// otherwise the rule and what does not fit it, in l's words.
func AreaProblem(l *i18n.Localizer, plan cinema.SeatPlan, ticketCats []string, seats []cinema.Seat) string {
	need := map[string]int{}
	for _, c := range ticketCats {
		need[c]++
	}
	got := map[string]int{}
	for _, s := range seats {
		if need[s.AreaCategoryCode] == 0 {
			ref := s.Ref()
			return l.T("booking.area_seat_elsewhere", "Rule", AreaRule(l, plan, ticketCats), "Seat", Seat(l, &ref),
				"Area", plan.AreaCategoryName(s.AreaCategoryCode))
		}
		got[s.AreaCategoryCode]++
	}
	for _, c := range ticketCats {
		if n := need[c]; got[c] != n {
			name := plan.AreaCategoryName(c)
			return l.T("booking.area_count", "Rule", AreaRule(l, plan, ticketCats),
				"Tickets", l.N("booking.area_tickets", n, "Area", name), "Seats", l.N("booking.area_seats", got[c], "Area", name))
		}
	}
	return ""
}

// SeatCountNotice says what is wrong with the number of seats chosen for want tickets, and
// what to do about it.
func SeatCountNotice(l *i18n.Localizer, chosen, want int) *components.Notice {
	n := &components.Notice{Kind: components.NoticeError,
		Heading: l.T("checkout.seat_count_heading", "Seats", l.N("common.seats", chosen), "Tickets", l.N("common.tickets", want))}
	if chosen > want {
		n.Body = l.N("checkout.seat_count_untick", chosen-want)
	} else {
		n.Body = l.N("checkout.seat_count_more", want-chosen)
	}
	return n
}

// SeatPrices is what a seat costs by area category, for the seat map's answer to a tap
// ("Row G · Seat 12 · €12.50"): the price of the tickets seated in that category, or their
// range when they differ ("€8.00–€12.50"), in l's format. Tickets without a seat or a
// category say nothing.
func SeatPrices(l *i18n.Localizer, tickets []cinema.OrderTicket) map[string]string {
	lo, hi := map[string]cinema.Money{}, map[string]cinema.Money{}
	for _, t := range tickets {
		if t.Seat == nil || t.Seat.AreaCategoryCode == "" {
			continue
		}
		c := t.Seat.AreaCategoryCode
		if m, ok := lo[c]; !ok || t.Price.Cents < m.Cents {
			lo[c] = t.Price
		}
		if m, ok := hi[c]; !ok || t.Price.Cents > m.Cents {
			hi[c] = t.Price
		}
	}
	out := make(map[string]string, len(lo))
	for c, min := range lo {
		out[c] = l.Money(min)
		if max := hi[c]; max.Cents != min.Cents {
			out[c] += "–" + l.Money(max)
		}
	}
	return out
}
