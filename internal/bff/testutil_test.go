package bff

import (
	"errors"
	"net/http"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

type goquery_Selection = goquery.Selection

type goquerySel = goquery.Selection

var errBoom = errors.New("database exploded: secret detail")

func docFrom(t testing.TB, r *http.Response) *goquery.Document {
	t.Helper()
	d, err := goquery.NewDocumentFromReader(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
