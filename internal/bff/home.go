package bff

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/views/pages"
)

// home is the start page: what a visitor can do here.
func (s *Server) home(c echo.Context) error {
	if isKiosk(c) {
		return s.kioskFlow.Start(c) // internal/bff/kiosk: three large choices
	}
	v := pages.HomeView{
		FindBookingURL: s.url(RouteFindBooking),
		WhatsOnURL:     s.url(RouteWhatsOn),
	}
	return s.render(c, http.StatusOK, loc(c).T("home.page_title"), pages.Home(v))
}
