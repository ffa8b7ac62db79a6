package bff_test

import (
	"github.com/alexedwards/scs/v2"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

var _ scs.CtxStore = (*bfftest.CountingStore)(nil)
