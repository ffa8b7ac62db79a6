package web

import "github.com/labstack/echo/v4"

// Guard turns a check into route middleware: nil lets the request through to its handler;
// anything else is the refusal answered instead (a *Error with the page that says who may do
// this). Who may reach a route is decided where it is registered, never inside its handler.
func Guard(check func(c echo.Context) error) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if err := check(c); err != nil {
				return err
			}
			return next(c)
		}
	}
}
