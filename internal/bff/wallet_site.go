package bff

import (
	"fmt"

	"github.com/cinemabff/cinemabff/internal/bff/wallet"
	"github.com/cinemabff/cinemabff/internal/bff/web"
	passes "github.com/cinemabff/cinemabff/internal/wallet"
	"github.com/cinemabff/cinemabff/internal/wallet/applepass"
	"github.com/cinemabff/cinemabff/internal/wallet/googlepass"
	"github.com/cinemabff/cinemabff/internal/wallet/walletlink"
)

// WalletDeps configure the passes for the phone's wallet. Without a LinkKey the site offers
// no wallet links (the routes answer that the link does not work).
type WalletDeps struct {
	// LinkKey signs the tokens of the wallet links (at least 16 bytes; replicas share it).
	LinkKey []byte
	// Organization is the operator's name on a pass; "" means the site's name.
	Organization string
	Apple        applepass.Identity
	Google       googlepass.Issuer
	GoogleKey    googlepass.ServiceAccount
}

// walletColors are the operator's colours on a pass: the site's indigo, white type.
var walletColors = applepass.Colors{
	Foreground: applepass.RGB{R: 255, G: 255, B: 255},
	Background: applepass.RGB{R: 55, G: 48, B: 163},
	Label:      applepass.RGB{R: 224, G: 231, B: 255},
}

// newWalletFlow builds the wallet flow and the booking page's wallet links.
func (s *Server) newWalletFlow(d WalletDeps) (*wallet.Handler, func(cinemaID string, number int64) (string, string), error) {
	h := &wallet.Handler{Site: s.Visits, Home: s.Kernel.URL(web.RouteHome), Logger: s.Kernel.Logger}
	if d.LinkKey == nil || s.Visits.Mail == nil || s.Visits.Mail.Signer == nil {
		return h, nil, nil // no ticket codes, no passes: the tickets' codes are what a pass carries
	}
	links, err := walletlink.NewSigner(d.LinkKey)
	if err != nil {
		return nil, nil, fmt.Errorf("bff: wallet links: %w", err)
	}
	org := d.Organization
	if org == "" {
		org = s.Kernel.Cfg.SiteName
	}
	h.Links = links
	h.Passes = &passes.Service{Bookings: s.Visits, Cinemas: s.Visits, Codes: s.Visits.Mail.Signer, Organization: org,
		Colors: walletColors, Apple: d.Apple, Google: d.Google, GoogleKey: d.GoogleKey, Now: s.Kernel.Now}
	return h, func(cinemaID string, number int64) (string, string) {
		return wallet.URLs(s.Kernel, links, cinemaID, number)
	}, nil
}
