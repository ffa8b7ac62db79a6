package bff

import (
	"context"
	"log/slog"

	"github.com/cinemabff/cinemabff/internal/bff/visit"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	"github.com/cinemabff/cinemabff/internal/settlement"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// newSettler builds the one settlement of edit payments, refunds and sales on a reader that
// every flow moving money, the payment webhook and the reconciler share. tender is the
// provider's payments' tender category upstream.
func newSettler(k *web.Kernel, v *visit.Visits, sales settlement.Sales, tender string) *settlement.Settler {
	return settlement.New(settlement.Deps{Ticketing: k.Ticketing, Payments: v.Payments, Ledger: v.Ledger, BoxOffice: v.BoxOffice,
		Readers: v.Readers, Sales: sales, SaleTicketing: saleTicketing(k.Ticketing), Logger: k.Logger,
		LoggerFrom: func(ctx context.Context) *slog.Logger { return web.LoggerFrom(ctx, nil) }, Now: k.Now,
		ReturnURL: func(id string) string { return k.AbsURL("edit.return", id) }, Tender: tender,
		Words: k.Langs.For(k.Langs.Fallback())})
}

// saleTicketing is the ticketing client as the settlement of sales needs it (nil without one).
func saleTicketing(t *upstream.Client) settlement.SaleTicketing {
	if t == nil {
		return nil
	}
	return t
}
