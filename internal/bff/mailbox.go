package bff

import (
	"encoding/base64"
	"errors"
	"net/http"
	"net/netip"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/bff/staff"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/mail"
	"github.com/cinemabff/cinemabff/views/pages"
)

func (s *Server) registerMailboxRoutes(r web.Router) {
	guard := web.Guard(s.mailboxReader)
	r.GET("/sandbox/mail", s.showMailbox, "sandbox.mailbox", guard)
	r.GET("/sandbox/mail/:name", s.showMailMessage, "sandbox.mail", guard)
	r.GET("/sandbox/mail/:name/html", s.showMailHTML, "sandbox.mail.html", guard)
}

// mailboxReader lets through who may read the sandbox's mailbox, which holds every customer's
// mail: a browser on this machine (the developer trying the site, loopback) and signed-in
// staff. Anyone else on the network is asked to sign in as staff. The client's address is the
// connection's (or, behind -trusted-proxies, the one they forward).
func (s *Server) mailboxReader(c echo.Context) error {
	if addr, err := netip.ParseAddr(c.RealIP()); err == nil && addr.Unmap().IsLoopback() {
		return nil
	}
	return staff.RequireStaff(s.Kernel, c)
}

// mailboxDir is the folder the pages show, or an error when there is no mailbox.
func (s *Server) mailboxDir(l *i18n.Localizer) (string, error) {
	if s.Mail == nil || !s.Mail.ShowMailbox || s.Mail.Dir == "" {
		return "", &web.Error{Code: web.ENotFound, Heading: l.T("staff.mailbox.none_heading"), Message: l.T("staff.mailbox.none_text"), BackURL: s.Kernel.URL("home"), BackLabel: l.T("staff.back_to_start")}
	}
	return s.Mail.Dir, nil
}

func (s *Server) showMailbox(c echo.Context) error {
	l := web.Loc(c)
	dir, err := s.mailboxDir(l)
	if err != nil {
		return err
	}
	list, err := mail.ListDir(dir)
	if err != nil {
		return err
	}
	zone := s.Visits.DefaultLocation(c.Request().Context())
	v := pages.MailboxView{Dir: dir}
	for _, m := range list {
		v.Messages = append(v.Messages, pages.MailboxItem{URL: s.Kernel.URL("sandbox.mail", m.Name), Subject: m.Subject, To: m.To,
			Date: words.WhenWithSeconds(l, m.Date, zone), Kind: m.Kind})
	}
	return s.Kernel.Render(c, http.StatusOK, l.T("staff.mailbox.page_title"), pages.Mailbox(v))
}

// storedMail reads the message named in the path.
func (s *Server) storedMail(c echo.Context) (mail.StoredMessage, error) {
	l := web.Loc(c)
	dir, err := s.mailboxDir(l)
	if err != nil {
		return mail.StoredMessage{}, err
	}
	m, err := mail.ReadStored(dir, c.Param("name"))
	if errors.Is(err, mail.ErrBadName) || errors.Is(err, mail.ErrNotFound) {
		return m, &web.Error{Code: web.ENotFound, Heading: l.T("staff.mailbox.no_such_heading"), Message: l.T("staff.mailbox.no_such_text"), BackURL: s.Kernel.URL("sandbox.mailbox"), BackLabel: l.T("staff.mailbox.all"), Err: err}
	}
	return m, err
}

func (s *Server) showMailMessage(c echo.Context) error {
	m, err := s.storedMail(c)
	if err != nil {
		return err
	}
	zone := s.Visits.DefaultLocation(c.Request().Context())
	v := pages.MailView{Subject: m.Subject, To: m.To, From: m.From, Date: web.Loc(c).Time(m.Date, zone, i18n.DateTimeLong), Text: m.Text,
		HTMLURL: s.Kernel.URL("sandbox.mail.html", m.Name), Images: len(m.Inline), BackURL: s.Kernel.URL("sandbox.mailbox")}
	return s.Kernel.Render(c, http.StatusOK, m.Subject, pages.MailMessage(v))
}

// showMailHTML serves the HTML part as the mail client would show it: inline images from
// their parts (as data: URLs), inline styles allowed, nothing else (no scripts, no requests).
func (s *Server) showMailHTML(c echo.Context) error {
	m, err := s.storedMail(c)
	if err != nil {
		return err
	}
	html := m.HTML
	for _, in := range m.Inline {
		data := "data:" + in.ContentType + ";base64," + base64.StdEncoding.EncodeToString(in.Data)
		html = strings.ReplaceAll(html, `"cid:`+in.CID+`"`, `"`+data+`"`)
	}
	h := c.Response().Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	return c.HTML(http.StatusOK, html)
}
