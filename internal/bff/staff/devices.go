package staff

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cinemabff/cinemabff/internal/audit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/device"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/views/components"
	"github.com/cinemabff/cinemabff/views/pages"
)

// Enrolled terminals (/staff/devices): supervisors see every counter and kiosk enrolment,
// change a live one's default language and revoke them.

// showDevices lists the enrolments, live ones first.
func (h *Handler) showDevices(c echo.Context) error {
	l := web.Loc(c)
	if h.Terminals == nil {
		return &web.Error{Code: web.EUnavailable, Heading: l.T("kiosk.not_available"), Message: l.T("kiosk.devices_no_database")}
	}
	ctx := c.Request().Context()
	list, err := h.Terminals.List(ctx, 0)
	if err != nil {
		return err
	}
	v := pages.DevicesView{CSRFToken: web.CSRFToken(c), DeviceURL: h.Site.URL("device"), Languages: h.deviceLanguages(l)}
	if msg := h.Site.PopFlash(c); msg != "" {
		v.Notice = &components.Notice{Kind: components.NoticeSuccess, Heading: msg}
	}
	zone := h.staffLocation(ctx)
	at := func(t time.Time) (string, string) {
		return l.Time(t, zone, i18n.DateTimeLong), t.UTC().Format(time.RFC3339)
	}
	this := web.DeviceOf(c)
	readers := h.readerStates(c, &v)
	for _, e := range list {
		row := pages.DeviceRow{ID: strconv.FormatInt(e.ID, 10), Name: e.Name, Mode: modeLabel(l, e.Mode), ModeValue: string(e.Mode),
			Language: h.deviceLanguage(l, e.Language), EnrolledBy: e.EnrolledBy, DeviceID: e.DeviceID, Live: e.Live(), ThisDevice: e.DeviceID == this.ID}
		row.EnrolledAt, row.EnrolledAtISO = at(e.EnrolledAt)
		if e.Live() {
			row.RevokeURL = h.Site.URL("staff.devices.revoke", e.ID)
			row.LanguageURL = h.Site.URL("staff.devices.language", e.ID)
			row.Reader = h.rowReader(l, e, readers, zone)
		} else {
			row.RevokedAt, row.RevokedAtISO = at(e.RevokedAt)
			row.RevokedBy = e.RevokedBy
		}
		v.Rows = append(v.Rows, row)
	}
	return h.Site.Render(c, http.StatusOK, l.T("kiosk.devices_title"), pages.Devices(v))
}

// readerStates reads the provider's card readers for the list, keyed by id (nil, with a note on
// the page, when the list cannot be read: the terminals are listed all the same).
func (h *Handler) readerStates(c echo.Context, v *pages.DevicesView) map[string]upstream.Reader {
	if h.Readers == nil {
		return nil
	}
	v.CardReaders = true
	ctx, cancel := context.WithTimeout(c.Request().Context(), readerListTimeout)
	defer cancel()
	list, err := h.Readers.ListReaders(ctx)
	if err != nil {
		web.LoggerFrom(ctx, h.Logger).Warn("card readers not listed for the terminals page", "err", err)
		v.ReaderNote = web.Loc(c).T("kiosk.devices_readers_unlisted")
		return nil
	}
	out := make(map[string]upstream.Reader, len(list))
	for _, r := range list {
		out[r.ID] = r
	}
	return out
}

// rowReader is a live enrolment's card reader with its state from the provider's list (read
// is nil when the list could not be read), or where its reader went.
func (h *Handler) rowReader(l *i18n.Localizer, e device.Enrolment, read map[string]upstream.Reader, zone *time.Location) pages.DeviceReader {
	if e.ReaderID == "" {
		if !e.ReaderMove.Moved() {
			return pages.DeviceReader{}
		}
		m := e.ReaderMove
		return pages.DeviceReader{Moved: l.T("kiosk.device_reader_moved", "Reader", m.ReaderID, "To", m.To, "By", m.By,
			"When", l.Time(m.At, zone, i18n.DateTimeLong))}
	}
	out := pages.DeviceReader{ID: e.ReaderID, Label: e.ReaderID}
	if read == nil {
		return out
	}
	r, ok := read[e.ReaderID]
	switch {
	case !ok:
		out.State = "unknown"
	case !r.Online:
		out.State = "offline"
	case r.Action.State == upstream.ReaderInProgress:
		out.State = "busy"
	default:
		out.State = "online"
	}
	out.Label = cmp.Or(r.Label, e.ReaderID)
	out.StateLabel = l.T(readerStateWords[out.State])
	return out
}

// readerStateWords are the words of each state of a terminal's card reader.
var readerStateWords = map[string]string{
	"online":  "kiosk.devices_reader_online",
	"offline": "kiosk.devices_reader_offline",
	"busy":    "kiosk.devices_reader_busy",
	"unknown": "kiosk.devices_reader_unknown",
}

// noSuchDevice is the answer for an enrolment id that names none.
func (h *Handler) noSuchDevice(l *i18n.Localizer) error {
	return &web.Error{Code: web.ENotFound, Heading: l.T("kiosk.devices_not_found_heading"), Message: l.T("kiosk.devices_not_found"),
		BackURL: h.Site.URL("staff.devices"), BackLabel: l.T("kiosk.devices_back")}
}

// revokeDevice ends an enrolment: its browser is a customer device from its next request on.
func (h *Handler) revokeDevice(c echo.Context) error {
	sup := h.Site.StaffUser(c) // a supervisor: the route's guard
	l := web.Loc(c)
	if h.Terminals == nil {
		return &web.Error{Code: web.EUnavailable, Heading: l.T("kiosk.not_available"), Message: l.T("kiosk.devices_revoke_no_database")}
	}
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return h.noSuchDevice(l)
	}
	e, err := h.Terminals.Revoke(c.Request().Context(), id, sup)
	switch {
	case errors.Is(err, device.ErrNotFound):
		return h.noSuchDevice(l)
	case errors.Is(err, device.ErrAlreadyRevoked):
		h.Site.Flash(c, l.T("kiosk.devices_already_revoked", "Name", e.Name, "By", e.RevokedBy))
	case err != nil:
		return err
	case e.Mode == device.Counter:
		h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionDeviceRevoke, Detail: enrolmentDetail(e)})
		h.Site.Flash(c, l.T("kiosk.devices_revoked_counter", "Name", e.Name))
	default:
		h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionDeviceRevoke, Detail: enrolmentDetail(e)})
		h.Site.Flash(c, l.T("kiosk.devices_revoked_kiosk", "Name", e.Name))
	}
	return web.Redirect(c, h.Site.URL("staff.devices"))
}

// setDeviceLanguage changes the default language of a live enrolment: the kiosk greets its
// next guest in it (a visit under way keeps the language it has). Audited as an enrolment
// change.
func (h *Handler) setDeviceLanguage(c echo.Context) error {
	l := web.Loc(c)
	if h.Terminals == nil {
		return &web.Error{Code: web.EUnavailable, Heading: l.T("kiosk.not_available"), Message: l.T("kiosk.devices_no_database")}
	}
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return h.noSuchDevice(l)
	}
	lang, ok := h.chosenDeviceLanguage(c)
	if !ok {
		return invalidDeviceLanguage(l, h.Site.URL("staff.devices"))
	}
	e, err := h.Terminals.SetLanguage(c.Request().Context(), id, lang)
	switch {
	case errors.Is(err, device.ErrNotFound):
		return h.noSuchDevice(l)
	case errors.Is(err, device.ErrAlreadyRevoked):
		h.Site.Flash(c, l.T("kiosk.devices_already_revoked", "Name", e.Name, "By", e.RevokedBy))
	case err != nil:
		return err
	default:
		h.Visits.RecordAudit(c, audit.Entry{Action: audit.ActionDeviceEnrol, Detail: "default language changed: " + enrolmentDetail(e)})
		h.Site.Flash(c, l.T("kiosk.devices_language_saved", "Name", e.Name, "Language", h.deviceLanguage(l, e.Language).Label))
	}
	return web.Redirect(c, h.Site.URL("staff.devices"))
}
