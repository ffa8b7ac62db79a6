// Package i18n owns the site's languages: the message catalogs (one JSON file per area and
// language under locales/, read with go-i18n), choosing a language for a request
// (golang.org/x/text/language's matcher) and writing money, dates and times the way each
// language does.
//
// A Localizer is made per request and travels in the request's context (NewContext,
// FromContext) or in a view model; nothing here is global. Message ids are dotted,
// lower-case words ("edit.held_for"); placeholders are {{.Name}}; plural messages have a
// "one" and an "other" form and are asked for with N.
package i18n

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"sync"

	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

//go:embed locales/*.json
var localeFiles embed.FS

// Languages are the site's languages, the first being the fallback for anything a
// translation lacks and for a browser that asks for none of them.
var Languages = []language.Tag{language.English, language.German}

// Catalog holds the messages of every language. Make one with Load at start-up and pass it on.
type Catalog struct {
	bundle   *goi18n.Bundle
	matcher  language.Matcher
	tags     []language.Tag // the matcher's, fallback first
	fallback language.Tag

	mu       sync.Mutex
	local    map[language.Tag]*Localizer
	audience map[audienceKey]*Localizer
}

// audienceKey names a localizer of one language for one audience.
type audienceKey struct {
	tag      language.Tag
	audience string
}

// Load reads the embedded catalogs. fallback is the language used when a browser asks for
// none of ours (language.Und means English).
func Load(fallback language.Tag) (*Catalog, error) {
	return LoadFS(localeFiles, "locales", fallback)
}

// LoadFS reads every *.json catalog in dir of fsys; a file's language is the part of its name
// before ".json" after the last dot ("booking.de.json" is German).
func LoadFS(fsys fs.FS, dir string, fallback language.Tag) (*Catalog, error) {
	if fallback == language.Und {
		fallback = Languages[0]
	}
	if !supported(fallback) {
		return nil, fmt.Errorf("i18n: %s is not one of the site's languages %v", fallback, Languages)
	}
	b := goi18n.NewBundle(Languages[0])
	b.RegisterUnmarshalFunc("json", json.Unmarshal)
	names, err := fs.Glob(fsys, path.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("i18n: list catalogs: %w", err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("i18n: no catalogs in %s", dir)
	}
	for _, n := range names {
		buf, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, fmt.Errorf("i18n: read %s: %w", n, err)
		}
		if _, err := b.ParseMessageFileBytes(buf, n); err != nil {
			return nil, fmt.Errorf("i18n: parse %s: %w", n, err)
		}
	}
	// The matcher's first tag is what it answers when nothing matches: the fallback.
	tags := []language.Tag{fallback}
	for _, l := range Languages {
		if l != fallback {
			tags = append(tags, l)
		}
	}
	return &Catalog{bundle: b, matcher: language.NewMatcher(tags), tags: tags, fallback: fallback, local: map[language.Tag]*Localizer{}}, nil
}

func supported(t language.Tag) bool {
	for _, l := range Languages {
		if l == t {
			return true
		}
	}
	return false
}

// Fallback is the language for a browser that asks for none of the site's.
func (c *Catalog) Fallback() language.Tag { return c.fallback }

// Match picks the site language for an Accept-Language header (the fallback when it names
// none of ours or cannot be read).
func (c *Catalog) Match(acceptLanguage string) language.Tag {
	prefs, _, err := language.ParseAcceptLanguage(acceptLanguage)
	if err != nil || len(prefs) == 0 {
		return c.fallback
	}
	_, i, conf := c.matcher.Match(prefs...)
	if conf == language.No {
		return c.fallback
	}
	return c.tags[i]
}

// Parse reads a language code a person chose ("de", "en", "de-AT") and says whether it is
// one of the site's languages; the answer is the site language it stands for.
func (c *Catalog) Parse(code string) (language.Tag, bool) { return Supported(code) }

// Supported reads a language code and says whether it names one of the site's languages
// (by its base language: "de-AT" is German); the answer is that site language.
func Supported(code string) (language.Tag, bool) {
	t, err := language.Parse(strings.TrimSpace(code))
	if err != nil {
		return language.Und, false
	}
	base, _ := t.Base()
	for _, l := range Languages {
		if lb, _ := l.Base(); lb == base {
			return l, true
		}
	}
	return language.Und, false
}

// For returns the localizer of a site language (the fallback's for any other tag). Localizers
// are made once per language and shared: they are safe for concurrent use.
func (c *Catalog) For(t language.Tag) *Localizer {
	if !supported(t) {
		t = c.fallback
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if l, ok := c.local[t]; ok {
		return l
	}
	l := &Localizer{tag: t, l: goi18n.NewLocalizer(c.bundle, t.String(), Languages[0].String()), p: message.NewPrinter(t)}
	c.local[t] = l
	return l
}

// ForAudience is For(t) for pages read by one audience ("counter": the box-office clerk, who
// serves the customer): a message with a variant for it, "<id>@<audience>" in the catalog, is
// written in the variant's words; every other message as For(t) writes it. The same words
// serve the customer's own pages and the clerk's without each view choosing between ids.
func (c *Catalog) ForAudience(t language.Tag, audience string) *Localizer {
	base := c.For(t)
	if audience == "" {
		return base
	}
	k := audienceKey{base.tag, audience}
	c.mu.Lock()
	defer c.mu.Unlock()
	if l, ok := c.audience[k]; ok {
		return l
	}
	if c.audience == nil {
		c.audience = map[audienceKey]*Localizer{}
	}
	l := &Localizer{tag: base.tag, l: base.l, p: base.p, audience: audience}
	c.audience[k] = l
	return l
}

// ForCode is For of a chosen language code; an unknown or empty code gives the fallback.
func (c *Catalog) ForCode(code string) *Localizer {
	t, ok := c.Parse(code)
	if !ok {
		t = c.fallback
	}
	return c.For(t)
}

// Localizer writes the messages, money and times of one language. The nil *Localizer is
// usable and answers every message with its id, so a missing localizer shows in a page (and
// fails the tests that look for the words) instead of crashing it.
type Localizer struct {
	tag language.Tag
	l   *goi18n.Localizer
	p   *message.Printer
	// audience, when set, prefers each message's variant for it (ForAudience).
	audience string

	// done remembers messages already written, by id, plural count and placeholders (see
	// doneKey): go-i18n matches the language and runs the message's template on every call,
	// and a page asks for the same words many times. The catalog never changes once loaded.
	mu   sync.Mutex
	done map[string]string
}

// maxDone bounds a localizer's remembered messages; when full they are all forgotten at once.
const maxDone = 8192

// maxDoneKey: a message whose id and placeholder values are longer is not remembered.
const maxDoneKey = 256

// doneKey is the key of a message in done, or false when a placeholder's value is of a type
// that is not written into the key (such a message is not remembered).
func doneKey(id string, count any, kv []any) (string, bool) {
	if len(kv) == 0 && count == nil {
		return id, true
	}
	n := len(id)
	for _, v := range kv {
		if s, ok := v.(string); ok {
			n += len(s)
		}
	}
	if n > maxDoneKey {
		return "", false // long values (a text of its own) are seldom asked for twice
	}
	var b strings.Builder
	b.Grow(n + 8*len(kv) + 24)
	b.WriteString(id)
	for i := -1; i < len(kv); i++ {
		v := count
		if i >= 0 {
			v = kv[i]
		}
		b.WriteByte(0)
		switch v := v.(type) {
		case nil:
			b.WriteByte('n')
		case string:
			b.WriteByte('s')
			b.WriteString(strconv.Itoa(len(v))) // the length first: no two lists share a key
			b.WriteByte(':')
			b.WriteString(v)
		case int:
			b.WriteByte('i')
			b.WriteString(strconv.Itoa(v))
		case int64:
			b.WriteByte('l')
			b.WriteString(strconv.FormatInt(v, 10))
		default:
			return "", false
		}
	}
	return b.String(), true
}

// Tag is the language.
func (l *Localizer) Tag() language.Tag {
	if l == nil {
		return Languages[0]
	}
	return l.tag
}

// Lang is the language's code for <html lang> and links: "en", "de".
func (l *Localizer) Lang() string { return l.Tag().String() }

// T is the message id in this language, its {{.Name}} placeholders filled from kv, pairs of
// name and value: T("edit.held_for", "Time", "9:41").
func (l *Localizer) T(id string, kv ...any) string {
	return l.localize(id, nil, kv)
}

// N is the plural message id for count: its "one" or "other" form (by the language's plural
// rules), with {{.Count}} set to count and further placeholders from kv.
func (l *Localizer) N(id string, count int, kv ...any) string {
	return l.localize(id, count, append([]any{"Count", count}, kv...))
}

func (l *Localizer) localize(id string, count any, kv []any) string {
	if l == nil {
		return id
	}
	key, keep := doneKey(id, count, kv)
	if !keep {
		return l.localizeNow(id, count, kv)
	}
	return l.remember(key, func() string { return l.localizeNow(id, count, kv) })
}

// remember is the text kept under key, made by write the first time. Keys that are not
// message ids start with a NUL byte.
func (l *Localizer) remember(key string, write func() string) string {
	l.mu.Lock()
	s, ok := l.done[key]
	l.mu.Unlock()
	if ok {
		return s
	}
	s = write()
	l.mu.Lock()
	if l.done == nil || len(l.done) >= maxDone {
		l.done = make(map[string]string)
	}
	l.done[key] = s
	l.mu.Unlock()
	return s
}

func (l *Localizer) localizeNow(id string, count any, kv []any) string {
	var data map[string]any
	if len(kv) > 0 {
		data = make(map[string]any, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			if k, ok := kv[i].(string); ok {
				data[k] = kv[i+1]
			}
		}
	}
	if l.audience != "" {
		if s, err := l.l.Localize(&goi18n.LocalizeConfig{MessageID: id + "@" + l.audience, TemplateData: data, PluralCount: count}); err == nil && s != "" {
			return s
		}
	}
	s, err := l.l.Localize(&goi18n.LocalizeConfig{MessageID: id, TemplateData: data, PluralCount: count})
	if err != nil || s == "" {
		return id
	}
	return s
}

// Has reports whether the catalog has message id in this language or the fallback.
func (l *Localizer) Has(id string) bool {
	if l == nil {
		return false
	}
	_, err := l.l.Localize(&goi18n.LocalizeConfig{MessageID: id, PluralCount: 2})
	return err == nil
}

type ctxKey struct{}

// NewContext carries l in ctx.
func NewContext(ctx context.Context, l *Localizer) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// FromContext is the localizer ctx carries; nil (which answers with message ids) when none.
func FromContext(ctx context.Context) *Localizer {
	l, _ := ctx.Value(ctxKey{}).(*Localizer)
	return l
}

// T is FromContext(ctx).T: the form templ components use.
func T(ctx context.Context, id string, kv ...any) string { return FromContext(ctx).T(id, kv...) }

// N is FromContext(ctx).N.
func N(ctx context.Context, id string, count int, kv ...any) string {
	return FromContext(ctx).N(id, count, kv...)
}

// Around is message id split at its placeholder slot, for a sentence with an element inside
// it (a live counter, a link): before and after are the words either side, in this language's
// order. A message without the slot is all before.
func (l *Localizer) Around(id, slot string, kv ...any) (before, after string) {
	const mark = "\x00slot\x00"
	s := l.T(id, append([]any{slot, mark}, kv...)...)
	before, after, _ = strings.Cut(s, mark)
	return before, after
}
