package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

const site = "http://127.0.0.1:18429"

var sandbox = os.Args[1]

func fault(method, body string) {
	req, _ := http.NewRequest(method, sandbox+"/sandbox-admin/faults", bytes.NewBufferString(body))
	req.Header["connectapitoken"] = []string{"sandbox-dev-token"}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	fmt.Println("fault", method, resp.StatusCode)
	resp.Body.Close()
}

func shot(ctx context.Context, name string) {
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		panic(err)
	}
	os.WriteFile("/tmp/walk/"+name+".png", buf, 0o644)
}

func text(ctx context.Context, sel string) string {
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`(document.querySelector(%q)||{innerText:""}).innerText`, sel)))
	return strings.Join(strings.Fields(s), " ")
}

func browser(w, h int) (context.Context, context.CancelFunc) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath("/usr/bin/chromium"), chromedp.WindowSize(w, h), chromedp.Flag("no-sandbox", true))
	actx, c1 := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, c2 := chromedp.NewContext(actx)
	chromedp.Do(ctx, chromedp.EmulateViewport(int64(w), int64(h)))
	return ctx, func() { c2(); c1() }
}

func timed(ctx context.Context, url string) time.Duration {
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible("h1")); err != nil {
		panic(err)
	}
	return time.Since(start)
}

func main() {
	os.MkdirAll("/tmp/walk", 0o755)
	phone, done := browser(390, 844)
	defer done()
	desk, done2 := browser(1280, 800)
	defer done2()
	read := time.Now()
	fmt.Println("phone whats-on fresh", timed(phone, site+"/whats-on"), text(phone, "h1"))
	shot(phone, "01-phone-whatson-fresh")
	fmt.Println("desk whats-on fresh", timed(desk, site+"/whats-on"))
	// My booking, found while the system is well.
	chromedp.Do(phone, chromedp.Navigate(site+"/booking"), chromedp.WaitVisible("h1"))
	shot(phone, "02-phone-find")

	fault("POST", `{"operation":"*","latency":"10s"}`)
	defer fault("DELETE", "")
	// Find booking 100001 with the ticketing system at 10 s per call.
	chromedp.Do(phone, chromedp.SetValue(`input[name="number"]`, "100001"), chromedp.SetValue(`input[name="email"]`, "paid1@example.com"))
	start := time.Now()
	err := chromedp.Do(phone, chromedp.Submit(`input[name="number"]`), chromedp.Sleep(300*time.Millisecond), chromedp.WaitVisible("h1"))
	h1, _ := chromedp.Run(phone, chromedp.Text("h1"))
	fmt.Println("phone find (slow)", time.Since(start), err, "|", h1, "|", text(phone, "main"))
	shot(phone, "03-phone-find-slow")

	wait := time.Until(read.Add(3*time.Minute + 30*time.Second))
	fmt.Println("waiting", wait.Round(time.Second), "for the listing to be over 3 min old")
	time.Sleep(wait)
	fmt.Println("phone whats-on old+slow", timed(phone, site+"/whats-on"), "|", text(phone, `[data-testid="listing-as-of"]`))
	shot(phone, "04-phone-whatson-stale")
	fmt.Println("desk whats-on old+slow", timed(desk, site+"/whats-on"), "|", text(desk, `[data-testid="listing-as-of"]`))
	shot(desk, "05-desk-whatson-stale")
}
