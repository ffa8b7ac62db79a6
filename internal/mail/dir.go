package mail

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	netmail "net/mail"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Dir is a transport that writes each message as a file, for the sandbox and development.
type Dir struct {
	dir string
}

// NewDir returns the transport writing into dir (created on first delivery).
func NewDir(dir string) *Dir { return &Dir{dir: dir} }

// Describe says where the files go.
func (d *Dir) Describe() string { return "files in " + d.dir }

// ErrBadName is returned by ReadStored for a name that is not a stored message's file name.
var ErrBadName = errors.New("mail: not a stored message name")

const (
	emlExt       = ".eml"
	nameTimeForm = "20060102-150405"
	maxStored    = 16 << 20 // a stored message larger than this is not ours
)

// Deliver writes msg to <dir>/<created yyyymmdd-hhmmss>-<kind>-<id>.eml through a temporary
// file and a rename, so a reader never sees half a message; delivering the same message again
// replaces the same file.
func (d *Dir) Deliver(ctx context.Context, m Message, msg *gomail.Msg) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.MkdirAll(d.dir, 0o750); err != nil {
		return fmt.Errorf("mail dir: %w", err)
	}
	name := StoredName(m)
	tmp, err := os.CreateTemp(d.dir, ".writing-*")
	if err != nil {
		return fmt.Errorf("mail dir: %w", err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if _, err := msg.WriteTo(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("mail dir write %s: %w", name, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("mail dir write %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("mail dir write %s: %w", name, err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(d.dir, name)); err != nil {
		return fmt.Errorf("mail dir write %s: %w", name, err)
	}
	return nil
}

// StoredName is the file name Dir gives m: its creation time (UTC), kind and id, with anything
// but letters, digits and '_' replaced by '_'.
func StoredName(m Message) string {
	kind := fileSafe(m.Kind)
	if kind == "" {
		kind = "mail"
	}
	return m.CreatedAt.UTC().Format(nameTimeForm) + "-" + kind + "-" + fileSafe(m.ID) + emlExt
}

func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			return r
		}
		return '_'
	}, s)
}

// Stored is one message file, as listed.
type Stored struct {
	Name      string // file name, for ReadStored
	Kind      string // from the file name
	Subject   string
	From      string
	To        string
	MessageID string
	Date      time.Time
}

// StoredMessage is one message file read whole.
type StoredMessage struct {
	Stored
	Text   string   // the text/plain part
	HTML   string   // the text/html part
	Inline []Inline // parts with a Content-ID (CID without angle brackets)
	// Attachments are the parts with Content-Disposition: attachment (a calendar event).
	Attachments []Attachment
}

// ListDir lists the messages in dir, newest first. A folder that does not exist yet holds no
// messages.
func ListDir(dir string) ([]Stored, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mail list %s: %w", dir, err)
	}
	var out []Stored
	for _, e := range entries {
		if !e.Type().IsRegular() || checkName(e.Name()) != nil {
			continue
		}
		s, err := readHeader(dir, e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Stored) int {
		if c := b.Date.Compare(a.Date); c != 0 {
			return c
		}
		return strings.Compare(b.Name, a.Name)
	})
	return out, nil
}

// ReadStored reads the message called name in dir: its headers, text and HTML parts and inline
// parts. A name with a path in it, a hidden one or one not ending in .eml is refused with
// ErrBadName; a name with no file is ErrNotFound (and fs.ErrNotExist).
func ReadStored(dir, name string) (StoredMessage, error) {
	if err := checkName(name); err != nil {
		return StoredMessage{}, err
	}
	data, err := readLimited(filepath.Join(dir, name))
	if err != nil {
		return StoredMessage{}, err
	}
	msg, err := netmail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		return StoredMessage{}, fmt.Errorf("mail read %s: %w", name, err)
	}
	out := StoredMessage{Stored: storedHeader(name, msg.Header)}
	if err := walkPart(msg.Header, msg.Body, &out, 0); err != nil {
		return StoredMessage{}, fmt.Errorf("mail read %s: %w", name, err)
	}
	return out, nil
}

func checkName(name string) error {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.ContainsRune(name, filepath.Separator) ||
		strings.HasPrefix(name, ".") || !strings.HasSuffix(name, emlExt) || len(name) == len(emlExt) {
		return fmt.Errorf("%w: %q", ErrBadName, name)
	}
	return nil
}

func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: stored message %s: %w", ErrNotFound, filepath.Base(path), err)
	}
	if err != nil {
		return nil, fmt.Errorf("mail read: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStored+1))
	if err != nil {
		return nil, fmt.Errorf("mail read %s: %w", filepath.Base(path), err)
	}
	if len(data) > maxStored {
		return nil, fmt.Errorf("mail read %s: larger than %d bytes", filepath.Base(path), maxStored)
	}
	return data, nil
}

// readHeader reads only the header of a stored message.
func readHeader(dir, name string) (Stored, error) {
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return Stored{}, fmt.Errorf("mail list: %w", err)
	}
	defer f.Close()
	msg, err := netmail.ReadMessage(io.LimitReader(f, maxStored))
	if err != nil {
		return Stored{}, fmt.Errorf("mail list %s: %w", name, err)
	}
	return storedHeader(name, msg.Header), nil
}

var wordDecoder = mime.WordDecoder{}

func storedHeader(name string, h netmail.Header) Stored {
	decode := func(key string) string {
		v := h.Get(key)
		if d, err := wordDecoder.DecodeHeader(v); err == nil {
			return d
		}
		return v
	}
	s := Stored{
		Name:      name,
		Kind:      kindFromName(name),
		Subject:   decode("Subject"),
		From:      decode("From"),
		To:        decode("To"),
		MessageID: h.Get("Message-Id"),
	}
	if d, err := h.Date(); err == nil {
		s.Date = d
	}
	return s
}

// kindFromName takes the kind out of "yyyymmdd-hhmmss-<kind>-<id>.eml".
func kindFromName(name string) string {
	rest := strings.TrimSuffix(name, emlExt)
	if len(rest) <= len(nameTimeForm)+1 {
		return ""
	}
	rest = rest[len(nameTimeForm)+1:]
	if i := strings.LastIndexByte(rest, '-'); i >= 0 {
		return rest[:i]
	}
	return ""
}

// partHeader is what walkPart needs of a header: net/mail's and multipart's have Get.
type partHeader interface{ Get(key string) string }

// walkPart collects the text, HTML and inline parts of one MIME entity, descending into
// multiparts.
func walkPart(h partHeader, body io.Reader, out *StoredMessage, depth int) error {
	if depth > 10 {
		return errors.New("multipart nested too deep")
	}
	mediaType, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		mediaType = "text/plain" // RFC 2045's default
	}
	if strings.HasPrefix(mediaType, "multipart/") {
		r := multipart.NewReader(body, params["boundary"])
		for {
			p, err := r.NextRawPart()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if err := walkPart(p.Header, p, out, depth+1); err != nil {
				return err
			}
		}
	}
	data, err := io.ReadAll(decodeBody(h.Get("Content-Transfer-Encoding"), body))
	if err != nil {
		return fmt.Errorf("%s part: %w", mediaType, err)
	}
	if cid := strings.Trim(h.Get("Content-Id"), "<> "); cid != "" {
		_, dparams, _ := mime.ParseMediaType(h.Get("Content-Disposition"))
		out.Inline = append(out.Inline, Inline{CID: cid, Filename: dparams["filename"], ContentType: mediaType, Data: data})
		return nil
	}
	if disp, dparams, _ := mime.ParseMediaType(h.Get("Content-Disposition")); disp == "attachment" {
		out.Attachments = append(out.Attachments, Attachment{Filename: dparams["filename"], ContentType: h.Get("Content-Type"), Data: data})
		return nil
	}
	switch {
	case mediaType == "text/plain" && out.Text == "":
		out.Text = string(data)
	case mediaType == "text/html" && out.HTML == "":
		out.HTML = string(data)
	}
	return nil
}

func decodeBody(encoding string, r io.Reader) io.Reader {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, r) // skips the line breaks itself
	case "quoted-printable":
		return quotedprintable.NewReader(r)
	}
	return r
}
