package sandbox

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// Two orders can never hold or buy the same seat, however the calls interleave.
func TestConcurrentOrdersNeverShareASeat(t *testing.T) {
	h := newHarness(t)

	t.Run("same seat", func(t *testing.T) {
		var wins atomic.Int32
		var wg sync.WaitGroup
		for i := 0; i < 24; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id := newID()
				j := h.addTickets(id, "0001", 1113, []string{"0001"}, "D5")
				if j["Result"] == 0.0 {
					wins.Add(1)
					h.post("/RESTTicketing.svc/order/payment", map[string]any{"UserSessionId": id, "BookingMode": 0,
						"PaymentInfo": map[string]any{"PaymentValueCents": 1325, "CardNumber": "4111111111111111"}})
				} else if j["Result"] != float64(resUnexpected) || j["ErrorDescription"] != seatTakenText {
					t.Errorf("unexpected answer %s", compact(j))
				}
			}()
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("%d orders got seat D5", wins.Load())
		}
	})

	t.Run("auto-allocation and swaps", func(t *testing.T) {
		var mu sync.Mutex
		taken := map[string]string{}
		var wg sync.WaitGroup
		for i := 0; i < 16; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id := newID()
				j := h.post("/RESTTicketing.svc/order/tickets", map[string]any{"UserSessionId": id, "CinemaId": "0001", "SessionId": "1122",
					"TicketTypes": []any{map[string]any{"TicketTypeCode": "0001", "Qty": 6}}, "ReturnOrder": true})
				if j["Result"] != 0.0 {
					return // the screen is full
				}
				mu.Lock()
				defer mu.Unlock()
				for _, s := range j["Order"].(map[string]any)["Sessions"].([]any) {
					for _, tk := range s.(map[string]any)["Tickets"].([]any) {
						seat := tk.(map[string]any)["SeatData"].(string)
						if prev, dup := taken[seat]; dup {
							t.Errorf("seat %s held by %s and %s", seat, prev, id)
						}
						taken[seat] = id
					}
				}
			}()
		}
		// Meanwhile a swap competes for seats in another session.
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				h.call("POST", "/cinemas/0001/bookings/BK0186A1/swap-seats", map[string]any{"swaps": []any{
					map[string]any{"ticketSequenceNumber": 1, "newSeat": h.camelSeat(1113, "B"+strconv.Itoa(1+i))}}})
			}(i)
		}
		wg.Wait()
		if len(taken) != 16*6 {
			t.Fatalf("%d seats held, want 96", len(taken))
		}
	})
}
