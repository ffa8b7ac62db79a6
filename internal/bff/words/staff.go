package words

import "github.com/cinemabff/cinemabff/internal/i18n"

// The demo accounts' display names (cmd/web creates them in demo mode). They are stored in
// English like any name typed by a supervisor, but they describe a role, not a person: the
// pages show them in the page's language (StaffName).
const (
	DemoBoxOffice  = "Demo box office"
	DemoSupervisor = "Demo supervisor"
)

// StaffName is a staff member's display name as the page shows it: a person's name as it is,
// a demo account's in l's language.
func StaffName(l *i18n.Localizer, name string) string {
	switch name {
	case DemoBoxOffice:
		return l.T("staff.name.demo_box_office")
	case DemoSupervisor:
		return l.T("staff.name.demo_supervisor")
	}
	return name
}
