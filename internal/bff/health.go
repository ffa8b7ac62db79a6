package bff

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/web"
)

// livez answers while the process can serve HTTP at all.
func (s *Server) livez(c echo.Context) error {
	return c.String(http.StatusOK, "ok\n")
}

// readyz answers 200 when the database answers and the upstream's circuit is not open.
func (s *Server) readyz(c echo.Context) error {
	if s.DB != nil {
		if err := s.DB.Ping(c.Request().Context()); err != nil {
			web.LoggerFrom(c.Request().Context(), s.Kernel.Logger).Warn("not ready: database", "err", err)
			return c.String(http.StatusServiceUnavailable, "database: unavailable\n")
		}
	}
	if s.Upstream != nil {
		if err := s.Upstream.Ready(); err != nil {
			return c.String(http.StatusServiceUnavailable, "upstream: "+err.Error()+"\n")
		}
	}
	body := "ready\n"
	// Still ready, and said where operators look: passes stop being issued when it ends.
	if end := s.walletCertEnds; !end.IsZero() && s.Kernel.Now().Add(30*24*time.Hour).After(end) {
		body += "wallet: the Apple pass certificate expires on " + end.UTC().Format("2006-01-02") + "; renew it\n"
	}
	return c.String(http.StatusOK, body)
}

// serveStatic serves the embedded assets (CSS, scripts, images) under their hashed names.
func (s *Server) serveStatic(c echo.Context) error {
	s.Kernel.Assets.ServeHTTP(c.Response(), c.Request())
	return nil
}
