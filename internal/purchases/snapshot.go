package purchases

import "time"

// Snapshot is the order as it stood when the payment started, kept with the payment record
// so the confirmation and the failed-order page need neither the visit nor the order.
type Snapshot struct {
	CinemaID  string         `json:"cinema"`
	FilmTitle string         `json:"film"`
	Showtime  time.Time      `json:"showtime"`
	Screen    string         `json:"screen"`
	Tickets   []SnapshotLine `json:"tickets"`
	Fees      int64          `json:"fees"`
	Total     int64          `json:"total"`
	Currency  string         `json:"currency"`
	Lang      string         `json:"lang,omitempty"` // the visit's language: its e-mails are written in it
	// Paid is how the box office took the money (nil: online, or on a card reader, which the
	// ledger holds).
	Paid *SnapshotPaid `json:"paid,omitempty"`
}

// SnapshotPaid is a payment taken at the box office: its tender ("cash" or "terminal"), the
// cash handed over (0: not typed) and the reference it was recorded under.
type SnapshotPaid struct {
	Tender     string `json:"tender"`
	GivenCents int64  `json:"given,omitempty"`
	Reference  string `json:"ref,omitempty"`
}

type SnapshotLine struct {
	Description string `json:"d"`
	Seat        string `json:"s"`
	Cents       int64  `json:"c"`
}
