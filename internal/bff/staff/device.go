package staff

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/pages"
)

// The device cookie names an enrolment; the mode is the enrolment row's, read on each request
// (device.Enrolments caches a row for at most device.DefaultCacheFor, 5 s: a revocation made on
// another replica ends the mode at the first request after that, one made here at once). Only a
// signed-in supervisor enrols a device or takes it out of its mode.

// enrolmentDetail is the audit row's Detail of an enrolment: its name, mode and default
// language (machine text, not translated).
func enrolmentDetail(e device.Enrolment) string {
	lang := e.Language
	if lang == "" {
		lang = "site default"
	}
	return fmt.Sprintf("%q as %s in %s (enrolment %d)", e.Name, e.Mode, lang, e.ID)
}

// modeLabel is a terminal mode's name in l's language.
func modeLabel(l *i18n.Localizer, m device.Mode) string {
	switch m {
	case device.Counter:
		return l.T("kiosk.device_mode_counter")
	case device.Kiosk:
		return l.T("kiosk.device_mode_kiosk")
	default:
		return l.T("kiosk.device_mode_customer")
	}
}

// deviceLanguages are the default languages a terminal can have: the site's default first,
// then each of the site's languages, named in its own language.
func (h *Handler) deviceLanguages(l *i18n.Localizer) []pages.DeviceLanguage {
	out := []pages.DeviceLanguage{h.deviceLanguage(l, "")}
	for _, t := range i18n.Languages {
		out = append(out, h.deviceLanguage(l, t.String()))
	}
	return out
}

// deviceLanguage names an enrolment's default language code: a site language in its own
// language ("Deutsch"); "" (or a language the site no longer speaks) as the site's default.
func (h *Handler) deviceLanguage(l *i18n.Localizer, code string) pages.DeviceLanguage {
	if t, ok := h.Langs.Parse(code); ok && code != "" {
		return pages.DeviceLanguage{Value: t.String(), Label: h.Langs.For(t).T("language.name"), Lang: t.String()}
	}
	// The site's language named in the page's ("Englisch" on a German page), as the sentence is.
	fallback := h.Langs.Fallback()
	return pages.DeviceLanguage{Value: "", Label: l.T("kiosk.device_language_site", "Language", l.T("language.named."+fallback.String()))}
}

// chosenDeviceLanguage reads the language field of a form: "" (the site's default) or a site
// language's code; ok is false for anything else.
func (h *Handler) chosenDeviceLanguage(c echo.Context) (code string, ok bool) {
	raw := c.FormValue("language")
	if raw == "" {
		return "", true
	}
	t, ok := h.Langs.Parse(raw)
	if !ok {
		return "", false
	}
	return t.String(), true
}

// invalidDeviceLanguage refuses a language the site does not speak (only a hand-made form
// sends one: the pages offer a choice).
func invalidDeviceLanguage(l *i18n.Localizer, back string) error {
	return &web.Error{Code: web.EInvalid, Heading: l.T("kiosk.device_language_invalid_heading"), Message: l.T("kiosk.device_language_invalid"),
		BackURL: back, BackLabel: l.T("kiosk.back")}
}

func (h *Handler) deviceView(c echo.Context) pages.DeviceView {
	dev := web.DeviceOf(c)
	l := web.Loc(c)
	v := pages.DeviceView{
		Current:   modeLabel(l, dev.Mode),
		Mode:      string(dev.Mode),
		Name:      dev.Name,
		Language:  h.deviceLanguage(l, dev.Language),
		Reader:    h.readerName(c.Request().Context(), dev.ReaderID),
		DeviceID:  dev.ID,
		CSRFToken: web.CSRFToken(c),

		ReaderMoved: h.Visits.ReaderMoved(c),
	}
	if dev.CinemaID != "" {
		v.Cinema = h.Visits.CinemaByID(c.Request().Context(), dev.CinemaID).Name
	}
	if dev.Mode == device.Kiosk {
		v.Voices = h.deviceLanguages(l)[1:]
	}
	user, sup := h.Site.StaffRole(c)
	if !sup {
		if user != "" {
			v.StaffName = h.Site.StaffMember(c)
		}
		v.SignInURL = h.Site.SignInURL(h.Site.URL("device"))
		return v
	}
	v.CanChange = true
	v.ActionURL = h.Site.URL("device")
	v.DevicesURL = h.Site.URL("staff.devices")
	v.NameValue = dev.Name
	v.Chosen = string(dev.Mode)
	v.Languages = h.deviceLanguages(l)
	v.LangValue = v.Language.Value
	h.deviceChoices(c, &v)
	v.Modes = []pages.DeviceMode{
		{Value: string(device.Customer), Label: modeLabel(l, device.Customer), Description: l.T("kiosk.device_mode_customer_text")},
		{Value: string(device.Counter), Label: modeLabel(l, device.Counter), Description: l.T("kiosk.device_mode_counter_text")},
		{Value: string(device.Kiosk), Label: modeLabel(l, device.Kiosk), Description: l.T("kiosk.device_mode_kiosk_text")},
	}
	return v
}

// showDevice shows what this terminal is; a supervisor can change it here, anybody else is
// asked to sign in as one.
func (h *Handler) showDevice(c echo.Context) error {
	v := h.deviceView(c)
	saved := c.QueryParam("saved")
	v.SignedOut = saved == savedKiosk && web.IsKiosk(c) && !v.CanChange
	v.Saved = saved == "1" && v.CanChange || v.SignedOut
	if v.SignedOut {
		v.KioskURL = h.Site.URL("home")
	}
	if v.Saved {
		v.SavedNote = h.Site.PopFlash(c)
	}
	return h.Site.Render(c, http.StatusOK, web.Loc(c).T("kiosk.device_title"), pages.Device(v))
}

// saveDevice enrols this browser as a counter or kiosk with its name and default language
// (replacing its current enrolment), or takes it out of that mode. Supervisors only: anybody
// else is refused and nothing changes. A new kiosk is left with nobody signed in.
func (h *Handler) saveDevice(c echo.Context) error {
	sup := h.Site.StaffUser(c) // SupervisorsOnly
	l := web.Loc(c)
	mode := device.Mode(c.FormValue("mode"))
	if !mode.Valid() {
		return &web.Error{Code: web.EInvalid, Heading: l.T("kiosk.device_mode_invalid_heading"), Message: l.T("kiosk.device_mode_invalid"), BackURL: h.Site.URL("device"), BackLabel: l.T("kiosk.back")}
	}
	if h.Enrolments == nil {
		return &web.Error{Code: web.EUnavailable, Heading: l.T("kiosk.not_available"), Message: l.T("kiosk.device_enrol_no_database"), BackURL: h.Site.URL("device"), BackLabel: l.T("kiosk.back")}
	}
	info := web.DeviceOf(c)
	if mode == device.Customer {
		if err := h.leaveMode(c, info, sup); err != nil {
			return err
		}
		info.Enrolment, info.Mode, info.Name, info.Language, info.ReaderID, info.CinemaID = 0, device.Customer, "", "", "", ""
		info.ReaderMove = device.ReaderMove{}
	} else {
		var answered bool
		var err error
		if info, answered, err = h.enrolHere(c, info, mode, sup); answered || err != nil {
			return err
		}
	}
	c.Set(web.DeviceKey, info) // the rest of this request sees the new mode
	if err := h.Devices.Write(c.Response(), c.Request(), info); err != nil {
		return err
	}
	if info.Mode == device.Kiosk {
		return h.leaveToKiosk(c, sup)
	}
	// The privilege of the visit changes with the mode: new session token.
	if err := h.Site.RenewSession(c); err != nil {
		return err
	}
	return web.Redirect(c, h.Site.URL("device")+"?saved=1")
}

// leaveToKiosk ends the supervisor's sign-in on a terminal just made a lobby kiosk. A kiosk is
// unattended: its first guest must not find a supervisor signed in, nor keep that sign-in alive
// by using the kiosk until its idle reset. The saved page says so, with what the save moved.
func (h *Handler) leaveToKiosk(c echo.Context, sup string) error {
	moved := h.Site.PopFlash(c) // a card reader moved here: kept across the visit's end
	if err := h.endSignIn(c, sup, "sign-in ended because this terminal became a lobby kiosk"); err != nil {
		return err
	}
	// The end of the visit may have flashed the orders it released: both lines are kept.
	if note := strings.TrimSpace(h.Site.PopFlash(c) + " " + moved); note != "" {
		h.Site.Flash(c, note)
	}
	return web.Redirect(c, h.Site.URL("device")+"?saved="+savedKiosk)
}

// savedKiosk is the saved page's query value after a kiosk's enrolment (the supervisor signed out).
const savedKiosk = "kiosk"

// leaveMode revokes this device's enrolment, if it has a live one (audited).
func (h *Handler) leaveMode(c echo.Context, info device.Info, sup string) error {
	if info.Enrolment == 0 {
		return nil
	}
	e, err := h.Enrolments.Revoke(c.Request().Context(), info.Enrolment, sup)
	switch {
	case err == nil:
		h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionDeviceRevoke, Detail: enrolmentDetail(e)})
	case !errors.Is(err, device.ErrAlreadyRevoked) && !errors.Is(err, device.ErrNotFound):
		return err
	}
	return nil
}

// enrolHere enrols this device as mode with the form's name, language, cinema and card reader,
// and returns it as enrolled now. A form with a problem is answered with the page again, the
// problem next to its field (answered true, nothing changed).
func (h *Handler) enrolHere(c echo.Context, info device.Info, mode device.Mode, sup string) (device.Info, bool, error) {
	l := web.Loc(c)
	lang, ok := h.chosenDeviceLanguage(c)
	if !ok {
		return info, false, invalidDeviceLanguage(l, h.Site.URL("device"))
	}
	again := func(set func(v *pages.DeviceView)) (device.Info, bool, error) {
		v := h.deviceView(c)
		v.Chosen, v.NameValue, v.LangValue = string(mode), c.FormValue("name"), lang
		v.ReaderValue, v.ReaderCode, v.CinemaValue = c.FormValue("reader"), c.FormValue("reader_code"), c.FormValue("cinema")
		set(&v)
		return info, true, h.Site.Render(c, http.StatusUnprocessableEntity, l.T("kiosk.device_title"), pages.Device(v))
	}
	name, err := device.CleanName(c.FormValue("name"))
	if err != nil {
		return again(func(v *pages.DeviceView) { v.NameError = l.T("kiosk.device_name_invalid", "Max", device.MaxNameLength) })
	}
	cinemaID, ok := h.chosenCinema(c)
	if !ok {
		return again(func(v *pages.DeviceView) { v.CinemaError = l.T("kiosk.device_cinema_invalid") })
	}
	readerID, problem, err := h.chosenReader(c, name)
	if err != nil {
		return info, false, err
	}
	if problem != "" {
		return again(func(v *pages.DeviceView) { v.ReaderError = problem })
	}
	e, err := h.Enrolments.Enrol(c.Request().Context(), device.Spec{DeviceID: info.ID, Name: name, Mode: mode, Language: lang,
		ReaderID: readerID, CinemaID: cinemaID, By: sup})
	if err != nil {
		return info, false, err
	}
	for _, r := range e.Replaced {
		h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionDeviceRevoke, Detail: enrolmentDetail(r)})
	}
	info.Enrolment, info.Mode, info.Name, info.Language, info.ReaderID, info.CinemaID = e.ID, e.Mode, e.Name, e.Language, e.ReaderID, e.CinemaID
	info.ReaderMove = device.ReaderMove{}
	c.Set(web.DeviceKey, info) // the audit rows are made on the device as enrolled now
	h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionDeviceEnrol, Detail: enrolmentDetail(e.Enrolment)})
	h.readerMovedHere(c, e)
	return info, false, nil
}

// readerMovedHere audits the card reader taken from other terminals for this one and keeps a
// line saying so for the page after the save.
func (h *Handler) readerMovedHere(c echo.Context, e device.Enrolled) {
	var from []string
	for _, r := range e.ReaderFrom {
		h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionDeviceEnrol,
			Detail: fmt.Sprintf("card reader %s moved from %q (enrolment %d) to %q (enrolment %d)", e.ReaderID, r.Name, r.ID, e.Name, e.ID)})
		from = append(from, "“"+r.Name+"”")
	}
	if len(from) > 0 {
		h.Site.Flash(c, web.Loc(c).T("kiosk.device_reader_moved_here", "Reader", e.ReaderID, "From", strings.Join(from, ", ")))
	}
}

// staffLocation is the time zone staff read times in: the first cinema's (UTC without one).
func (h *Handler) staffLocation(ctx context.Context) *time.Location {
	if h.Ticketing == nil {
		return time.UTC
	}
	list, err := h.Visits.Cinemas(ctx)
	if err != nil || len(list) == 0 {
		return time.UTC
	}
	return list[0].Location()
}

// deviceChoices fills the set-up form's cinemas and card readers, with this terminal's as the
// choices made (a new terminal: the first cinema; in test mode a new simulated reader).
func (h *Handler) deviceChoices(c echo.Context, v *pages.DeviceView) {
	ctx := c.Request().Context()
	l := web.Loc(c)
	dev := web.DeviceOf(c)
	if h.Ticketing != nil {
		if list, err := h.Visits.Cinemas(ctx); err == nil {
			for _, ci := range list {
				v.Cinemas = append(v.Cinemas, pages.DeviceOption{Value: ci.ID, Label: ci.Name})
			}
			v.CinemaValue = dev.CinemaID
			if v.CinemaValue == "" && len(list) > 0 {
				v.CinemaValue = list[0].ID
			}
		}
	}
	if h.Readers == nil {
		return
	}
	v.CardReaders = true
	v.ReaderValue = dev.ReaderID
	if v.ReaderValue == "" {
		v.ReaderValue = pages.ReaderNone
	}
	if h.Readers.Mode() == "test" {
		v.ReaderCode = simulatedReaderCode
		if dev.ReaderID == "" {
			v.ReaderValue = pages.ReaderNew
		}
	}
	rctx, cancel := context.WithTimeout(ctx, readerListTimeout)
	defer cancel()
	readers, err := h.Readers.ListReaders(rctx)
	if err != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("card readers not listed", "err", err)
		v.ReaderNote = l.T("kiosk.device_reader_unlisted")
		return
	}
	usedBy := h.readersInUse(ctx, dev.ID)
	for _, r := range readers {
		label := l.T("kiosk.device_reader_option", "Label", cmp.Or(r.Label, r.ID), "ID", r.ID)
		if !r.Online {
			label += " " + l.T("kiosk.device_reader_offline")
		}
		o := pages.DeviceOption{Value: r.ID, Label: label}
		if name, ok := usedBy[r.ID]; ok {
			o.Note = l.T("kiosk.device_reader_used_by", "Name", name)
		}
		v.Readers = append(v.Readers, o)
	}
}

// readerName is the card reader as its label says ("Counter 1 reader"): its id only where the
// provider does not answer or the reader has no label.
func (h *Handler) readerName(ctx context.Context, id string) string {
	if id == "" || h.Readers == nil {
		return id
	}
	rctx, cancel := context.WithTimeout(ctx, readerListTimeout)
	defer cancel()
	readers, err := h.Readers.ListReaders(rctx)
	if err != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("card readers not listed for this terminal's reader's name", "err", err)
		return id
	}
	for _, r := range readers {
		if r.ID == id && r.Label != "" {
			return r.Label
		}
	}
	return id
}

// readersInUse maps each card reader a live enrolment of another device has to that
// terminal's name (none when the enrolments cannot be read: the note is a courtesy).
func (h *Handler) readersInUse(ctx context.Context, deviceID string) map[string]string {
	out := map[string]string{}
	if h.Terminals == nil {
		return out
	}
	list, err := h.Terminals.List(ctx, 0)
	if err != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("enrolments not listed for the card readers in use", "err", err)
		return out
	}
	for _, e := range list {
		if e.Live() && e.ReaderID != "" && e.DeviceID != deviceID {
			out[e.ReaderID] = e.Name
		}
	}
	return out
}

// simulatedReaderCode registers a simulated reader in the provider's test mode.
const simulatedReaderCode = "simulated-wpe"

// readerListTimeout bounds listing the readers for the set-up form.
const readerListTimeout = 5 * time.Second

// chosenCinema reads the cinema field: "" (any) or one of the cinemas.
func (h *Handler) chosenCinema(c echo.Context) (string, bool) {
	id := strings.TrimSpace(c.FormValue("cinema"))
	if id == "" || h.Ticketing == nil {
		return "", id == "" || h.Ticketing == nil
	}
	list, err := h.Visits.Cinemas(c.Request().Context())
	if err != nil {
		return "", false
	}
	for _, ci := range list {
		if ci.ID == id {
			return id, true
		}
	}
	return "", false
}

// chosenReader reads the card reader field: none, one of the account's readers, or a new one
// registered at the provider with the code the reader shows (labelled with the terminal's
// name, at the site's location). problem says in words what was wrong with the choice.
func (h *Handler) chosenReader(c echo.Context, name string) (readerID, problem string, err error) {
	choice := strings.TrimSpace(c.FormValue("reader"))
	if h.Readers == nil || choice == "" || choice == pages.ReaderNone {
		return "", "", nil
	}
	ctx := c.Request().Context()
	l := web.Loc(c)
	if choice == pages.ReaderNew {
		code := strings.TrimSpace(c.FormValue("reader_code"))
		if code == "" {
			return "", l.T("kiosk.device_reader_code_missing"), nil
		}
		loc, err := h.Settings.ReaderLocation, error(nil)
		if loc == "" {
			loc, err = h.Readers.EnsureLocation(ctx, h.SiteName, cmp.Or(h.Settings.ReaderCountry, "DE"))
		}
		if err == nil {
			var r upstream.Reader
			if r, err = h.Readers.RegisterReader(ctx, code, name, loc); err == nil {
				return r.ID, "", nil
			}
		}
		web.LoggerFrom(ctx, h.Logger).Warn("card reader not registered", "err", err)
		if errors.Is(err, upstream.ErrUnavailable) {
			return "", l.T("kiosk.device_reader_unreachable"), nil
		}
		return "", l.T("kiosk.device_reader_refused"), nil
	}
	readers, err := h.Readers.ListReaders(ctx)
	if err != nil {
		return "", l.T("kiosk.device_reader_unreachable"), nil
	}
	for _, r := range readers {
		if r.ID == choice {
			return r.ID, "", nil
		}
	}
	return "", l.T("kiosk.device_reader_unknown"), nil
}
