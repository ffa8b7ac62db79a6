package bff

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/views/pages"
)

// home is the start page: what a visitor can do here.
func (s *Server) home(c echo.Context) error {
	if web.IsKiosk(c) {
		return s.kioskFlow.Start(c) // internal/bff/kiosk: three large choices
	}
	v := pages.HomeView{
		FindBookingURL: s.Kernel.URL("booking.find"),
		WhatsOnURL:     s.Kernel.URL("whatson"),
		Counter:        s.Kernel.AtCounter(c),
	}
	return s.Kernel.Render(c, http.StatusOK, web.Loc(c).T("home.page_title"), pages.Home(v))
}
