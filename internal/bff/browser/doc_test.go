// Package browser_test drives the mounted site in Chromium (chromedp): the pages as the customer's
// phone, the counter terminal and the kiosk show them, their layout, focus, keyboard and touch,
// and whole journeys. These tests need Chromium (/usr/bin/chromium-headless-shell, or
// /usr/bin/chromium); they skip loudly without it and fail when CI is set. The flows' HTTP
// tests, which need no browser, live beside each flow.
//
// Each test starts its own server and opens its pages in browser contexts of their own, so the
// tests run in parallel (they mostly wait on Chromium); those that measure time or layout shifts,
// change a setting of the flows for their run, or walk many pages with walks of their own run
// alone, first.
package browser_test

import (
	"os"
	"testing"

	"github.com/cinemabff/cinemabff/internal/browsertest"
)

func TestMain(m *testing.M) { os.Exit(browsertest.Main(m)) }
