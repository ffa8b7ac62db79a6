package bff_test

import (
	"errors"

	"github.com/PuerkitoBio/goquery"
)

type goquery_Selection = goquery.Selection

var errBoom = errors.New("database exploded: secret detail")
