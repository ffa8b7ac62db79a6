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
func newSettler(k *web.Kernel, p visit.Deps, tender string) *settlement.Settler {
	var sales settlement.Sales // the purchase records a sale on a reader completes
	if p.Purchases != nil {
		sales = p.Purchases
	}
	return settlement.New(settlement.Deps{Ticketing: k.Ticketing, Payments: p.Payments, Ledger: p.Ledger, BoxOffice: p.BoxOffice,
		Readers: p.Readers, Sales: sales, SaleTicketing: saleTicketing(k.Ticketing), Logger: k.Logger,
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
