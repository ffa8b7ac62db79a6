// Package browsertest drives the installed Chromium with chromedp for end-to-end tests: it
// records every request and console message of a page, so a test can assert that a page
// makes no request to another host and logs no error, and it saves screenshots as artifacts.
package browsertest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/cinemabff/cinemabff/internal/testenv"
)

// Page is one browser tab with its recorded traffic.
type Page struct {
	Ctx context.Context
	t   *testing.T

	mu       sync.Mutex
	requests []string
	console  []chromedp.ConsoleMessage
}

// Options tune a page.
type Options struct {
	Width, Height int64 // viewport; default 1280x900
	Mobile        bool  // emulate a phone (touch, small viewport)
	Touch         bool  // a touch screen (no mouse, no hover) at the given viewport: the kiosk
	NoJavaScript  bool  // disable scripts (proves pages work without them)
	// Timeout bounds everything the page does; 0 means 90 seconds. A long walk through many
	// pages (with axe-core and a screenshot at each) needs more.
	Timeout time.Duration
}

// Browser is one headless Chromium (own user-data dir) for several pages in turn.
type Browser struct {
	ctx context.Context // has run once: the browser is up and lives as long as this context
}

// NewBrowser starts a headless Chromium of the test's own; it stops when the test ends.
func NewBrowser(t *testing.T) *Browser {
	t.Helper()
	ctx, stop, err := startChromium(testenv.Chromium(t), t.TempDir())
	if err != nil {
		t.Fatalf("start browser: %v", err)
	}
	t.Cleanup(stop)
	return &Browser{ctx: ctx}
}

// startChromium starts a headless Chromium with its profile in dir.
func startChromium(path, dir string) (context.Context, func(), error) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(dir),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	stop := func() { cancelCtx(); cancelAlloc() }
	// The first call on a chromedp context starts the browser, which then lives as long as that
	// call's context: not a page's deadline, or a step that runs out of time would take the
	// browser with it and leave nothing to show what the page was doing (dumpFailure).
	if err := chromedp.Do(ctx); err != nil {
		stop()
		return nil, nil, err
	}
	return ctx, stop, nil
}

// NewPage opens a tab in a browser context of its own: no cookies, storage or cache are shared
// with the browser's other pages, as if it were a fresh browser, without the cost of starting
// one. The tab closes when the test ends.
func (b *Browser) NewPage(t *testing.T, o Options) *Page {
	t.Helper()
	return newTab(t, b.ctx, o)
}

// NewPage opens a tab in a browser context of its own (nothing shared with other tests' pages)
// in the test binary's one Chromium, which the first page starts and Main stops. Starting a
// browser per page cost about half of each browser test's time.
func NewPage(t *testing.T, o Options) *Page {
	t.Helper()
	return newTab(t, sharedBrowser(t), o)
}

func newTab(t *testing.T, browser context.Context, o Options) *Page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	return newPage(t, ctx, o)
}

// shared is the test binary's one Chromium.
var shared struct {
	mu   sync.Mutex
	ctx  context.Context
	stop func()
	dir  string
}

// sharedBrowser returns the running shared Chromium, starting it (again, if it has gone).
func sharedBrowser(t *testing.T) context.Context {
	t.Helper()
	path := testenv.Chromium(t)
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.ctx != nil && shared.ctx.Err() == nil {
		return shared.ctx
	}
	stopShared()
	dir, err := os.MkdirTemp("", "browsertest-")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop, err := startChromium(path, dir)
	if err != nil {
		os.RemoveAll(dir)
		t.Fatalf("start browser: %v", err)
	}
	shared.ctx, shared.stop, shared.dir = ctx, stop, dir
	return ctx
}

// stopShared stops the shared Chromium and removes its profile; shared.mu is held.
func stopShared() {
	if shared.stop != nil {
		shared.stop()
		os.RemoveAll(shared.dir)
	}
	shared.ctx, shared.stop, shared.dir = nil, nil, ""
}

// Main runs a test binary's tests and then stops the shared Chromium; the TestMain of a package
// whose tests open pages calls it: os.Exit(browsertest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	shared.mu.Lock()
	stopShared()
	shared.mu.Unlock()
	return code
}

// newPage sets up the tab of ctx (a chromedp context) as o says.
func newPage(t *testing.T, ctx context.Context, o Options) *Page {
	t.Helper()
	p := &Page{t: t}
	if err := chromedp.Listen(ctx, p.record); err != nil { // opens the tab if it is not open yet
		t.Fatalf("open tab: %v", err)
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = 90 * time.Second
	}
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	t.Cleanup(cancelTimeout)
	p.Ctx = ctx
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("enable network events: %v", err)
	}
	w, h := o.Width, o.Height
	if w == 0 {
		w, h = 1280, 900
	}
	var vopts []chromedp.EmulateViewportOption
	if o.Mobile {
		vopts = append(vopts, chromedp.EmulateMobile, chromedp.EmulateTouch)
	} else if o.Touch {
		vopts = append(vopts, chromedp.EmulateTouch)
	}
	steps := []chromedp.Action[chromedp.Void]{chromedp.EmulateViewport(w, h, vopts...)}
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("viewport: %v", err)
	}
	if o.NoJavaScript {
		if err := disableScripts(ctx); err != nil {
			t.Fatalf("disable JavaScript: %v", err)
		}
	}
	go func() {
		for m, err := range chromedp.Console(ctx) {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.console = append(p.console, m)
			p.mu.Unlock()
		}
	}()
	return p
}

func (p *Page) record(ev any) {
	if e, ok := ev.(*network.EventRequestWillBeSent); ok {
		p.mu.Lock()
		p.requests = append(p.requests, e.Request.URL)
		p.mu.Unlock()
	}
}

// Do runs steps and fails the test on error, with a screenshot of the moment.
func (p *Page) Do(steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.Ctx, steps...); err != nil {
		p.t.Fatalf("browser: %v (%s)", err, p.dumpFailure())
	}
}

// Text returns the visible text of the first match of sel.
func (p *Page) Text(sel string) string {
	p.t.Helper()
	s, err := chromedp.Run(p.Ctx, chromedp.Text(sel))
	if err != nil {
		p.t.Fatalf("text of %s: %v (%s)", sel, err, p.dumpFailure())
	}
	return s
}

// Requests returns every URL the page asked for so far.
func (p *Page) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// AssertOnlyHost fails if any request went to a host other than host (host:port).
func (p *Page) AssertOnlyHost(host string) {
	p.t.Helper()
	for _, r := range p.Requests() {
		u, err := url.Parse(r)
		if err != nil {
			p.t.Errorf("unparsable request URL %q", r)
			continue
		}
		if u.Scheme == "data" || u.Scheme == "about" {
			continue
		}
		if u.Host != host {
			p.t.Errorf("request to another host: %s", r)
		}
	}
}

// AssertNoConsoleErrors fails on any console error, warning about CSP, or uncaught exception.
func (p *Page) AssertNoConsoleErrors() {
	p.t.Helper()
	time.Sleep(150 * time.Millisecond) // let late console events arrive
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.console {
		if m.IsException() || m.Type == "error" || m.Type == "warning" || strings.Contains(m.Text, "Content Security Policy") {
			p.t.Errorf("console %s: %s (%s:%d)", m.Type, m.Text, m.URL, m.Line)
		}
	}
}

// dumpFailure saves what the page shows as a step fails: a screenshot and the page's address
// and HTML (artifacts/failure-<test>.jpg and .html). A step that failed because the page's
// deadline passed has left p.Ctx done; the tab itself lives until the test's cleanup, so the
// dump runs under a short deadline of its own. It returns where the dump went, for the message.
func (p *Page) dumpFailure() string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(p.Ctx), 15*time.Second)
	defer cancel()
	name := "failure-" + sanitize(p.t.Name())
	shot := p.screenshot(ctx, name)
	page, err := chromedp.Run(ctx, chromedp.Evaluate[[2]string](`[location.href, document.documentElement.outerHTML]`))
	if err != nil {
		return fmt.Sprintf("screenshot %s; no HTML: %v", shot, err)
	}
	path := filepath.Join(ArtifactsDir(p.t), name+".html")
	if err := os.WriteFile(path, []byte("<!-- "+page[0]+" -->\n"+page[1]), 0o644); err != nil {
		p.t.Logf("write page HTML: %v", err)
	}
	return fmt.Sprintf("page at %s; screenshot %s, HTML %s", page[0], shot, path)
}

// Screenshot saves the full page as a JPEG under artifacts/ at the repository root. A JPEG,
// not a PNG: Chromium's PNG encoding of the browser tests' full pages cost about a tenth of
// their CPU (docs/testing.md).
func (p *Page) Screenshot(name string) string {
	p.t.Helper()
	return p.screenshot(p.Ctx, name)
}

func (p *Page) screenshot(ctx context.Context, name string) string {
	p.t.Helper()
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(85))
	if err != nil {
		p.t.Logf("screenshot %s: %v", name, err)
		return ""
	}
	dir := ArtifactsDir(p.t)
	path := filepath.Join(dir, name+".jpg")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		p.t.Logf("write screenshot: %v", err)
	}
	return path
}

// ArtifactsDir is artifacts/ at the module root (git-ignored), created on demand.
func ArtifactsDir(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
	out := filepath.Join(dir, "artifacts")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	return out
}

func sanitize(s string) string {
	return strings.NewReplacer("/", "_", " ", "_").Replace(s)
}
