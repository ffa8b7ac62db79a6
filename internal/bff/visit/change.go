package visit

import (
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/cinema"
)

// Change is one thing an edit changed, in no language: the booking page says it in the
// visitor's (changeWords), the audit trail in English.
type Change struct {
	What   string         `json:"what"` // ChangeAdded, ChangeRemoved, ChangeMoved, ChangeSaved, ChangeAtCinema
	Ticket string         `json:"ticket,omitempty"`
	Seat   words.SeatName `json:"seat,omitzero"`
	From   words.SeatName `json:"from,omitzero"`   // a moved ticket's seat before
	Amount cinema.Money   `json:"amount,omitzero"` // ChangeAtCinema: what the amount to pay there changed by
}

const (
	ChangeAdded    = "added"
	ChangeRemoved  = "removed"
	ChangeMoved    = "moved"
	ChangeSaved    = "saved"     // nothing to list: the changes are saved
	ChangeAtCinema = "at_cinema" // the amount to pay at the cinema changed
)
