package browsertest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// navigateWait is how long Navigate lets chromedp wait for the page's load event before it
// looks at the document itself.
const navigateWait = 20 * time.Second

// Navigate is chromedp.Navigate for long walks through many pages. chromedp waits for the
// page's load event, which it can miss on a slow machine (a 2-core runner with the race
// detector): the navigation then hangs until the test's deadline with the page fully drawn (as
// in chromedp's issue #355; the page tour met it on /device). When the event has not come within
// navigateWait, Navigate reads the document instead: the page at url, loaded, is arrived.
func Navigate(url string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		nctx, cancel := context.WithTimeout(ctx, navigateWait)
		err := chromedp.Do(nctx, chromedp.Navigate(url))
		cancel()
		if err == nil || ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
			return chromedp.Void{}, err
		}
		for {
			st, err := chromedp.Run(ctx, chromedp.Evaluate[[2]string](`[location.href, document.readyState]`))
			if err == nil && strings.HasPrefix(st[0], url) && st[1] == "complete" {
				return chromedp.Void{}, nil
			}
			select {
			case <-ctx.Done():
				return chromedp.Void{}, fmt.Errorf("navigate to %s: %w (the page is at %q, %q)", url, ctx.Err(), st[0], st[1])
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

// Shown waits until the first element matching the CSS selector sel is in the document and
// drawn (not display:none or visibility:hidden, and of some size). It asks the page itself,
// where chromedp.WaitVisible follows the frames and documents chromedp has been told about:
// after a load event chromedp missed (see Navigate), that record can stay behind the page for
// good and WaitVisible waits for the test's deadline with the element on screen.
func Shown(sel string) chromedp.Action[chromedp.Void] {
	return Until(fmt.Sprintf(`(() => {
		const el = document.querySelector(%q);
		if (!el) return false;
		const s = getComputedStyle(el), r = el.getBoundingClientRect();
		return s.display !== 'none' && s.visibility !== 'hidden' && (r.width > 0 || r.height > 0);
	})()`, sel))
}

// Until asks the page every 50 ms whether the script condition cond is true, until it is or
// the context ends. Between two documents the question fails; the next document is asked.
func Until(cond string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		for {
			ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](cond))
			if err == nil && ok {
				return chromedp.Void{}, nil
			}
			select {
			case <-ctx.Done():
				return chromedp.Void{}, fmt.Errorf("wait for %s: %w (last answer: %v, %v)", cond, ctx.Err(), ok, err)
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
}
