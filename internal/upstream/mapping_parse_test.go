package upstream

import (
	"testing"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

func TestParseMappings(t *testing.T) {
	b, err := ParseBookingStatusMapping("3=booked, 4=added,5=removed")
	if err != nil || b[3] != cinema.LineKept || b[4] != cinema.LineAdded || b[5] != cinema.LineRemoved || len(b) != 3 {
		t.Fatalf("booking mapping %v %v", b, err)
	}
	if d, _ := ParseBookingStatusMapping(""); d[1] != cinema.LineAdded {
		t.Fatal("empty is not the default")
	}
	for _, bad := range []string{"x=added", "1=paid", "1"} {
		if _, err := ParseBookingStatusMapping(bad); err == nil {
			t.Errorf("booking mapping %q accepted", bad)
		}
	}
	p, err := ParsePaymentStatusMapping("A=paid,D=declined")
	if err != nil || p["A"] != cinema.PaymentPaid || p["D"] != cinema.PaymentDeclined || len(p) != 2 {
		t.Fatalf("payment mapping %v %v", p, err)
	}
	if _, ok := p["Y"]; ok {
		t.Fatal("a configured mapping kept the default letters")
	}
	for _, bad := range []string{"=paid", "Y=great", "Y"} {
		if _, err := ParsePaymentStatusMapping(bad); err == nil {
			t.Errorf("payment mapping %q accepted", bad)
		}
	}
}
