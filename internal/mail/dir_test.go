package mail

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDir(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data", "mail") // not there yet: Deliver makes it
	d := NewDir(dir)
	if got := d.Describe(); got != "files in "+dir {
		t.Errorf("Describe = %q", got)
	}
	if list, err := ListDir(dir); err != nil || len(list) != 0 {
		t.Fatalf("ListDir of a missing folder = %v, %v; want nothing", list, err)
	}

	older := testMessage("0a1b")
	newer := testMessage("2c3d")
	newer.Kind = "booking_edited"
	newer.CreatedAt = older.CreatedAt.Add(time.Hour)
	for _, m := range []Message{older, newer, older} { // older twice: the same file again
		r, err := composeTest(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		msg, err := Build(testFrom, m, r)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Deliver(ctx, m, msg); err != nil {
			t.Fatalf("Deliver %s: %v", m.ID, err)
		}
	}

	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o750 {
		t.Errorf("folder mode = %v (%v), want 0750", fi.Mode().Perm(), err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	wantOlder, wantNewer := "20260314-183005-booking_confirmed-0a1b.eml", "20260314-193005-booking_edited-2c3d.eml"
	if len(names) != 2 || names[0] != wantOlder || names[1] != wantNewer {
		t.Fatalf("files = %v, want [%s %s] (no temporary files, one file per message)", names, wantOlder, wantNewer)
	}

	list, err := ListDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Name != wantNewer || list[1].Name != wantOlder {
		t.Fatalf("ListDir = %+v, want newest first", list)
	}
	first := list[0]
	if first.Kind != "booking_edited" || first.Subject != "Ihre Buchung – Saal 3" || first.To != "<ann@example.org>" ||
		!first.Date.Equal(newer.CreatedAt) || first.MessageID != newer.MessageID {
		t.Errorf("ListDir[0] = %+v", first)
	}

	got, err := ReadStored(dir, wantOlder)
	if err != nil {
		t.Fatal(err)
	}
	if got.Subject != "Ihre Buchung – Saal 3" || got.Kind != "booking_confirmed" {
		t.Errorf("ReadStored header = %+v", got.Stored)
	}
	if got.Text != "Hello Ann,\nyour seats are booked.\n" && got.Text != "Hello Ann,\r\nyour seats are booked.\r\n" {
		t.Errorf("Text = %q", got.Text)
	}
	if want := `<p>Hello Ann,</p><p>your seats are booked.</p><img src="cid:logo" alt="Cinema">`; got.HTML != want {
		t.Errorf("HTML = %q, want %q", got.HTML, want)
	}
	if len(got.Inline) != 1 || got.Inline[0].CID != "logo" || got.Inline[0].ContentType != "image/png" ||
		got.Inline[0].Filename != "logo.png" || !bytes.Equal(got.Inline[0].Data, logoPNG()) {
		t.Errorf("Inline = %+v", got.Inline)
	}
	raw, err := os.ReadFile(filepath.Join(dir, wantOlder))
	if err != nil {
		t.Fatal(err)
	}
	checkComposed(t, raw, older) // the file is the whole message, as a relay would get it

	for _, name := range []string{
		"", ".eml", "../" + wantOlder, "sub/" + wantOlder, `sub\` + wantOlder, "/etc/passwd",
		".writing-123", ".hidden.eml", "20260314-183005-booking_confirmed-0a1b.txt",
	} {
		if _, err := ReadStored(dir, name); !errors.Is(err, ErrBadName) {
			t.Errorf("ReadStored(%q): err = %v, want ErrBadName", name, err)
		}
	}
	if _, err := ReadStored(dir, "20990101-000000-x-ffff.eml"); !errors.Is(err, ErrNotFound) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadStored of a missing file: err = %v, want ErrNotFound and fs.ErrNotExist", err)
	}
}

func TestStoredName(t *testing.T) {
	at := time.Date(2026, 3, 14, 19, 30, 5, 0, time.FixedZone("CET", 3600))
	for _, tc := range []struct {
		kind, id, want string
	}{
		{"booking_confirmed", "0a1b", "20260314-183005-booking_confirmed-0a1b.eml"},
		{"", "0a1b", "20260314-183005-mail-0a1b.eml"},
		{"../../etc", "a/b", "20260314-183005-______etc-a_b.eml"},
		{"Buchung bestätigt", `c:\d`, "20260314-183005-Buchung_best_tigt-c__d.eml"},
	} {
		got := StoredName(Message{Kind: tc.kind, ID: tc.id, CreatedAt: at})
		if got != tc.want {
			t.Errorf("StoredName(%q, %q) = %q, want %q", tc.kind, tc.id, got, tc.want)
		}
		if err := checkName(got); err != nil {
			t.Errorf("ReadStored would refuse %q: %v", got, err)
		}
	}
}

// TestDirKeepsAttachments: a stored message gives back its attachments apart from the body and
// the inline images.
func TestDirKeepsAttachments(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m := testMessage("4e5f")
	r, err := composeTest(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	ics := []byte("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n")
	r.Attachments = []Attachment{{Filename: "booking-100001.ics", ContentType: "text/calendar; charset=utf-8; method=PUBLISH", Data: ics}}
	msg, err := Build(testFrom, m, r)
	if err != nil {
		t.Fatal(err)
	}
	if err := NewDir(dir).Deliver(ctx, m, msg); err != nil {
		t.Fatal(err)
	}
	list, err := ListDir(dir)
	if err != nil || len(list) != 1 {
		t.Fatalf("ListDir = %v, %v", list, err)
	}
	got, err := ReadStored(dir, list[0].Name)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Attachments) != 1 || got.Attachments[0].Filename != "booking-100001.ics" || string(got.Attachments[0].Data) != string(ics) ||
		!strings.HasPrefix(got.Attachments[0].ContentType, "text/calendar") {
		t.Fatalf("attachments = %+v", got.Attachments)
	}
	if len(got.Inline) != 1 || !strings.Contains(got.Text, "Hello Ann,") {
		t.Errorf("the body beside the attachment: %d inline, text %q", len(got.Inline), got.Text)
	}
}
