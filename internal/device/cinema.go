package device

// Serves reports whether this device may look up, change, pay for or print the bookings and
// tickets of cinema cinemaID: a counter or kiosk enrolled for one cinema serves that cinema
// alone; one enrolled for none, and a customer's device, serve any.
func (i Info) Serves(cinemaID string) bool {
	return i.CinemaID == "" || i.CinemaID == cinemaID
}
