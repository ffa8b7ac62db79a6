package bff

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/views/components"
)

// areaRule states the seating-area rule of a seat change, naming the area (category) of the
// tickets: "New seats must be in the same seating area (Standard) as the tickets".
func areaRule(plan cinema.SeatPlan, ticketCats []string) string {
	var names []string
	for _, c := range ticketCats {
		if n := categoryName(plan, c); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) == 1 {
		return fmt.Sprintf("New seats must be in the same seating area (%s) as the tickets", names[0])
	}
	return fmt.Sprintf("New seats must be in the seating areas of the tickets (%s), each ticket in its own", strings.Join(names, ", "))
}

// areaProblem checks chosen seats against the area categories of the tickets that get them
// (one category per ticket): "" when every category gets as many seats as it has tickets,
// otherwise the rule and what does not fit it.
func areaProblem(plan cinema.SeatPlan, ticketCats []string, seats []cinema.Seat) string {
	need := map[string]int{}
	for _, c := range ticketCats {
		need[c]++
	}
	got := map[string]int{}
	for _, s := range seats {
		if need[s.AreaCategoryCode] == 0 {
			return fmt.Sprintf("%s: %s is in the %s area.", areaRule(plan, ticketCats), seatText(ptr(s.Ref())), categoryName(plan, s.AreaCategoryCode))
		}
		got[s.AreaCategoryCode]++
	}
	for _, c := range ticketCats {
		if n := need[c]; got[c] != n {
			name := categoryName(plan, c)
			return fmt.Sprintf("%s: you have %d %s %s and chose %d %s %s.", areaRule(plan, ticketCats), n, name, plural(n, "ticket", "tickets"),
				got[c], name, plural(got[c], "seat", "seats"))
		}
	}
	return ""
}

// seatCountNotice says what is wrong with the number of seats chosen for want tickets, and
// what to do about it.
func seatCountNotice(chosen, want int) *components.Notice {
	n := &components.Notice{Kind: components.NoticeError,
		Heading: fmt.Sprintf("You chose %d %s for %d %s", chosen, plural(chosen, "seat", "seats"), want, plural(want, "ticket", "tickets"))}
	if chosen > want {
		n.Body = fmt.Sprintf("Untick %d %s: each ticket gets exactly one seat.", chosen-want, plural(chosen-want, "seat", "seats"))
	} else {
		n.Body = fmt.Sprintf("Choose %d more %s: each ticket needs one seat.", want-chosen, plural(want-chosen, "seat", "seats"))
	}
	return n
}
