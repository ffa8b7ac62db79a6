package upstream

import (
	"encoding/json"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"os"
	"path/filepath"
	"testing"
)

// addGoldens seeds a fuzz target with every golden body (testdata/golden):
// each decoder must survive every shape the real wire has.
func addGoldens(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no golden bodies: %v", err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func addFixtures(f *testing.F, names ...string) {
	addGoldens(f)
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func testConverter() converter {
	return converter{
		currency:      func(string) string { return "EUR" },
		location:      func(string) *time.Location { return time.UTC },
		bookingStatus: DefaultBookingStatusMapping(),
		paymentStatus: DefaultPaymentStatusMapping(),
		seatStatus:    DefaultSeatStatusMapping(),
	}
}

// decodeChecked runs the client's decode path: unmarshal, result codes, convert.
func decodeChecked[T any](raw []byte, conv func(*T)) {
	v := new(T)
	if json.Unmarshal(raw, v) != nil {
		return
	}
	if r, ok := any(v).(responder); ok {
		c := r.resultCodes()
		if !c.ok() {
			_ = newError("Fuzz", 200, c).Error()
			return
		}
	}
	conv(v)
}

func FuzzDecodeOrderEnvelope(f *testing.F) {
	addFixtures(f, "order_envelope.json")
	f.Add([]byte(`{"Result":4,"ExtendedResultCode":41,"ErrorDescription":"expired"}`))
	f.Add([]byte(`{"Order":{"LastUpdated":"\/Date(1+0100)\/","Sessions":[{"SessionId":"x","Tickets":[{"SeatNumber":"1","SeatAreaNumber":"z"}]}],"SuggestedDeals":[{"LimitPerOrder":"3"}]}}`))
	f.Add([]byte(`{"Order":{"ExpiryDate":"\/Date(-99999999999999-2359)\/","AmountToPayInCents":-1}}`))
	f.Add([]byte(`null`))
	cv := testConverter()
	f.Fuzz(func(t *testing.T, raw []byte) {
		decodeChecked(raw, func(w *wireOrderEnvelope) { o := cv.order(w.Order); _ = o.Tickets(); _ = o.ToPay() })
	})
}

func FuzzDecodeEditOrder(f *testing.F) {
	addFixtures(f, "edit_order.json")
	f.Add([]byte(`{"result":4,"extendedResultCode":43,"errorDescription":"x","reason":"concessions"}`))
	f.Add([]byte(`{"order":{"sessions":[{"id":"1","tickets":[{"ticketDetails":{"bookingStatus":99,"dealDefinitionId":{"a":1}},"seats":[{}]}]}],"bookingFees":[{}]}}`))
	f.Add([]byte(`{"order":null,"suggestedDeals":[{"limitPerOrder":1.5}]}`))
	cv := testConverter()
	f.Fuzz(func(t *testing.T, raw []byte) {
		decodeChecked(raw, func(w *wireEditOrderResponse) {
			e := cv.editOrder(w)
			_ = e.ToPay()
			_ = e.ToRefund()
			_ = e.HasUnknown()
		})
	})
}

func FuzzDecodeOrderDetails(f *testing.F) {
	addFixtures(f, "order_details.json")
	f.Add([]byte(`{"OrderIdentifiers":null,"OrderWebPaymentData":{"PaymentStatus":"?"},"PrintStreams":[{"PrintDocType":-7}]}`))
	cv := testConverter()
	f.Fuzz(func(t *testing.T, raw []byte) {
		decodeChecked(raw, func(w *wireOrderDetails) { d := cv.orderDetails(w); _ = len(d.PrintStreams) })
	})
}

func FuzzDecodeBookingAndSeatPlan(f *testing.F) {
	addFixtures(f, "single_booking.json", "seat_plan.json")
	f.Add([]byte(`{"ResultCode":1,"ExtendedResultCode":47,"ErrorDescription":"booking not found"}`))
	f.Add([]byte(`{"SeatLayoutData":{"Areas":[{"Rows":[{"Seats":[{"Status":-1,"OriginalStatus":null,"SeatsInGroup":[{}]}]}]}]}}`))
	cv := testConverter()
	f.Fuzz(func(t *testing.T, raw []byte) {
		decodeChecked(raw, func(w *wireSingleBookingResponse) {
			if w.Booking != nil {
				b := cv.booking(w.Booking, "0001")
				_ = b.PackageMates(1)
			}
		})
		decodeChecked(raw, func(w *wireSeatPlanResponse) { sp := cv.seatPlan(w.SeatLayoutData, "0001", "1"); _ = sp.Count(0) })
	})
}

func FuzzProbeCodes(f *testing.F) {
	for _, s := range []string{
		`{"Result":4,"ExtendedResultCode":0,"ErrorDescription":"x"}`,
		`{"result":4,"extendedResultCode":44,"errorDescription":"x","reason":"seat_unavailable"}`,
		`{"ResultCode":1,"ExtendedResultCode":47}`, `{"ResponseCode":50}`, `{"error":"not_found","message":"m"}`,
		`<html>`, ``, `[]`, `{"Result":"4"}`,
	} {
		f.Add([]byte(s), 400)
	}
	f.Fuzz(func(t *testing.T, raw []byte, status int) {
		c := probeCodes(raw)
		e := newError("Fuzz", status, c)
		_ = e.Error()
		_ = outcome(e)
		_, _ = EditRefusal(e)
	})
}

func FuzzDecodeCompleteOrderReply(f *testing.F) {
	addGoldens(f)
	f.Add([]byte(`{"Result":0,"VistaBookingNumber":"12","CoreBookingNumber":3,"PrintStreamCollection":["a",{"PrintStream":"b","PrintDocType":"2"},7]}`))
	cv := testConverter()
	f.Fuzz(func(t *testing.T, raw []byte) {
		decodeChecked(raw, func(w *wireCompleteOrderReply) { d := cv.completion(w, "u"); _ = len(d.PrintStreams) })
	})
}

func FuzzDecodeListings(f *testing.F) {
	addGoldens(f)
	f.Add([]byte(`{"value":[{"ID":"0001-x","Showtime":"2019-02-26T20:00:00","SessionBusinessDate":null,"RunTime":"87","TimeZoneId":"W. Europe Standard Time"}]}`))
	f.Add([]byte(`{"value":[{"Showtime":"\/Date(1+0100)\/","SessionId":14164,"AllowTicketSales":null}]}`))
	cv := testConverter()
	films := map[string]cinema.Film{"HO00000001": {Title: "x"}}
	f.Fuzz(func(t *testing.T, raw []byte) {
		decodeChecked(raw, func(w *wireSessionList) {
			for _, s := range w.Value {
				cs := cv.session(s, time.UTC, films)
				_ = cs.Day()
			}
		})
		decodeChecked(raw, func(w *wireCinemaList) {
			for _, c := range w.Value {
				_, _ = zoneLocation(c.TimeZoneId)
			}
		})
		decodeChecked(raw, func(w *wireFilmList) {})
	})
}

func FuzzDecodeTicketTypes(f *testing.F) {
	addGoldens(f)
	f.Add([]byte(`{"Tickets":[{"PackageContent":{"Tickets":[{"Quantity":"2"},{}]},"PriceInCents":"1250","ProductCodeForVoucher":0}]}`))
	cv := testConverter()
	f.Fuzz(func(t *testing.T, raw []byte) {
		decodeChecked(raw, func(w *wireTicketTypesResponse) { _ = cv.ticketTypes(w.Tickets, "0001") })
	})
}

func FuzzDecodeEditAndSwapReplies(f *testing.F) {
	addGoldens(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		decodeChecked(raw, func(w *wireCompleteEditResponse) {})
		decodeChecked(raw, func(w *wireSwapSeatsResponse) {})
		decodeChecked(raw, func(w *wireStartExternalPaymentResponse) {})
	})
}
