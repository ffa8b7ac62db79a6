package kiosk

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/webtest"
)

// TestCollectedWhere: where the tickets were printed before, said from where they are
// collected now.
func TestCollectedWhere(t *testing.T) {
	l := webtest.English(t)
	kioskHere := device.Info{ID: "dev-1", Mode: device.Kiosk}
	counterHere := device.Info{ID: "dev-1", Mode: device.Counter, Name: "Counter 1"}
	at := time.Date(2026, 11, 1, 18, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		here device.Info
		cv   collectVisit
		want string
	}{
		{"only upstream knew", kioskHere, collectVisit{BeforeAt: at}, ""},
		{"this kiosk", kioskHere, collectVisit{BeforeOurs: true, BeforeDevice: "dev-1"}, l.T("kiosk.where_this_kiosk")},
		{"this terminal", counterHere, collectVisit{BeforeOurs: true, BeforeDevice: "dev-1"}, l.T("kiosk.where_this_terminal")},
		{"named", kioskHere, collectVisit{BeforeOurs: true, BeforeDevice: "dev-2", BeforeName: "Counter 2"}, l.T("kiosk.where_named", "Name", "Counter 2")},
		{"other kiosk", kioskHere, collectVisit{BeforeOurs: true, BeforeDevice: "dev-2"}, l.T("kiosk.where_other_kiosk")},
		{"other terminal", counterHere, collectVisit{BeforeOurs: true, BeforeDevice: "dev-2"}, l.T("kiosk.where_other_terminal")},
	} {
		c := echo.New().NewContext(httptest.NewRequest("GET", "/kiosk/collect/again", nil), httptest.NewRecorder())
		c.Set(web.DeviceKey, tc.here)
		if got := (&Handler{}).collectedWhere(c, l, tc.cv); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
