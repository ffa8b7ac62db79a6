package web

// The one route table: every route's name and its path pattern. A name is how code and
// views refer to a page (Kernel.URL builds the address); the flows register their handlers
// under these names, so a route exists once, here, and a missing name fails the route tests.

// The site.
const (
	RouteHome       = "home"
	RouteDevice     = "device"
	RouteVisitReset = "visit.reset"
	RouteLivez      = "livez"
	RouteReadyz     = "readyz"
	RouteMetrics    = "metrics"
)

// Finding, showing and changing a booking.
const (
	RouteFindBooking    = "booking.find"
	RouteBooking        = "booking.show"
	RouteBookingForget  = "booking.forget"
	RouteBookingTickets = "booking.tickets"
	RouteEdit           = "edit.show"
	RouteEditStart      = "edit.start"
	RouteEditAdd        = "edit.add"
	RouteEditRemove     = "edit.remove"
	RouteEditSeats      = "edit.seats"
	RouteEditExtend     = "edit.extend"
	RouteEditCancel     = "edit.cancel"
	RouteEditComplete   = "edit.complete"
	RouteEditReturn     = "edit.return"
	RouteEditStatus     = "edit.status"
	RouteEditExpired    = "edit.expired"
	// Another showtime: the other shows of the booking's film (GET), and moving the booking
	// to one of them (POST), which starts an edit.
	RouteShowtimes = "edit.showtimes"
)

// A booking's wallet passes, reached by a signed token of the booking.
const (
	RouteWalletApple   = "wallet.apple"
	RouteWalletGoogle  = "wallet.google"
	RouteWalletService = "wallet.service" // Apple's PassKit web service, which phones call
)

// The calendar event (.ics) of a booking: the bound booking's, and a purchase's this visit
// completed (checked against the visit's purchases, never by the booking number alone).
const (
	RouteBookingCalendar = "booking.calendar"
	RouteBuyCalendar     = "buy.calendar"
)

// Buying tickets.
const (
	RouteWhatsOn     = "whatson"
	RouteBuySession  = "buy.session"
	RouteBuySeats    = "buy.seats"
	RouteBuyDetails  = "buy.details"
	RouteBuySummary  = "buy.summary"
	RouteBuyGiftCard = "buy.giftcard"
	RouteBuyLoyalty  = "buy.loyalty"
	RouteBuyExtend   = "buy.extend"
	RouteBuyCancel   = "buy.cancel"
	RouteBuyExpired  = "buy.expired"
	RouteBuyPay      = "buy.pay"
	RouteBuyReturn   = "buy.return"
)

// Staff sign-in and Needs attention.
const (
	RouteStaffSignIn           = "staff.signin"
	RouteStaffSignOut          = "staff.signout"
	RouteStaffAttention        = "staff.attention"
	RouteStaffAttentionRetry   = "staff.attention.retry"
	RouteStaffAttentionResolve = "staff.attention.resolve"
)

// The sandbox's mailbox.
const (
	RouteMailbox     = "sandbox.mailbox"
	RouteMailMessage = "sandbox.mail"
	RouteMailHTML    = "sandbox.mail.html"
)

// The box office counter.
const (
	RouteEditCounterPay   = "edit.counterpay"
	RouteEditGiveBack     = "edit.giveback"     // a refund's part handed back at the counter
	RouteEditReaderCancel = "edit.readercancel" // stop the card reader asking for the card
	RouteBuyCounterPay    = "buy.counterpay"
	RouteBuyReader        = "buy.reader"       // a purchase paid on the device's card reader
	RouteBuyReaderCancel  = "buy.readercancel" // stop the card reader asking for the card
	RouteNextCustomer     = "staff.next"
)

// The payment provider's events.
const (
	RoutePaymentWebhook = "payments.webhook"
)

// Swapping seats.
const (
	RouteSwapShow    = "swap.show"    // GET: choose tickets and new seats; POST: check the choice
	RouteSwapConfirm = "swap.confirm" // GET: the moves to confirm; POST: swap
	RouteSwapDone    = "swap.done"    // GET: old and new seats, read back after the swap
)

// The lobby kiosk.
const (
	RouteKioskCollect      = "kiosk.collect"
	RouteKioskCollectAgain = "kiosk.collect.again"
	RouteKioskCollected    = "kiosk.collected"
	RouteKioskIdle         = "kiosk.idle"
	RouteKioskIdleExpired  = "kiosk.idle.expired"
	RouteKioskBegin        = "kiosk.begin"   // POST: "Touch to start" on the attract screen begins a visit
	RouteKioskDisplay      = "kiosk.display" // POST: larger text or high contrast, for this visit
)

// The back office.
const (
	RouteStaffAccounts           = "staff.accounts"
	RouteStaffAccountEndSessions = "staff.accounts.endsessions"
	RouteStaffAccountUnlock      = "staff.accounts.unlock"
	RouteStaffDevices            = "staff.devices"
	RouteStaffDeviceRevoke       = "staff.devices.revoke"
	RouteStaffDeviceLanguage     = "staff.devices.language"
	RouteStaffAudit              = "staff.audit"
)

// Paths maps every route name to its pattern.
var Paths = Routes{
	RouteHome:                    "/",
	RouteDevice:                  "/device",
	RouteVisitReset:              "/visit/reset",
	RouteLivez:                   "/livez",
	RouteReadyz:                  "/readyz",
	RouteMetrics:                 "/metrics",
	RouteFindBooking:             "/booking",
	RouteBooking:                 "/booking/current",
	RouteBookingForget:           "/booking/forget",
	RouteBookingTickets:          "/booking/tickets",
	RouteBookingCalendar:         "/booking/calendar.ics",
	RouteWalletApple:             "/wallet/:token/booking.pkpass",
	RouteWalletGoogle:            "/wallet/:token/google",
	RouteWalletService:           "/passkit/*",
	RouteEdit:                    "/booking/edit",
	RouteEditStart:               "/booking/edit/start",
	RouteEditAdd:                 "/booking/edit/tickets",
	RouteEditRemove:              "/booking/edit/tickets/remove",
	RouteEditSeats:               "/booking/edit/seats",
	RouteEditExtend:              "/booking/edit/extend",
	RouteEditCancel:              "/booking/edit/cancel",
	RouteEditComplete:            "/booking/edit/complete",
	RouteEditReturn:              "/booking/edit/payment/:entry",
	RouteEditStatus:              "/booking/edit/status/:entry",
	RouteEditExpired:             "/booking/edit/expired",
	RouteShowtimes:               "/booking/showtimes",
	RouteWhatsOn:                 "/whats-on",
	RouteBuySession:              "/whats-on/:cinema/:session",
	RouteBuySeats:                "/checkout/seats",
	RouteBuyDetails:              "/checkout/details",
	RouteBuySummary:              "/checkout",
	RouteBuyGiftCard:             "/checkout/gift-card",
	RouteBuyLoyalty:              "/checkout/loyalty",
	RouteBuyExtend:               "/checkout/extend",
	RouteBuyCancel:               "/checkout/cancel",
	RouteBuyExpired:              "/checkout/expired",
	RouteBuyPay:                  "/checkout/pay",
	RouteBuyReturn:               "/checkout/payments/:ref",
	RouteBuyCalendar:             "/checkout/payments/:ref/calendar.ics",
	RouteStaffSignIn:             "/staff/sign-in",
	RouteStaffSignOut:            "/staff/sign-out",
	RouteStaffAttention:          "/staff/attention",
	RouteStaffAttentionRetry:     "/staff/attention/:kind/:ref/retry",
	RouteStaffAttentionResolve:   "/staff/attention/:kind/:ref/resolve",
	RouteMailbox:                 "/sandbox/mail",
	RouteMailMessage:             "/sandbox/mail/:name",
	RouteMailHTML:                "/sandbox/mail/:name/html",
	RouteEditCounterPay:          "/booking/edit/counter-payment",
	RouteEditGiveBack:            "/booking/edit/refund/:entry/given-back",
	RouteEditReaderCancel:        "/booking/edit/payment/:entry/reader-cancel",
	RouteBuyCounterPay:           "/checkout/counter-payment",
	RouteBuyReader:               "/checkout/reader/:entry",
	RouteBuyReaderCancel:         "/checkout/reader/:entry/cancel",
	RouteNextCustomer:            "/staff/next-customer",
	RoutePaymentWebhook:          "/payments/webhook",
	RouteSwapShow:                "/bookings/:cinema/:number/seats",
	RouteSwapConfirm:             "/bookings/:cinema/:number/seats/confirm",
	RouteSwapDone:                "/bookings/:cinema/:number/seats/done",
	RouteKioskCollect:            "/kiosk/collect",
	RouteKioskCollectAgain:       "/kiosk/collect/again",
	RouteKioskCollected:          "/kiosk/collect/tickets",
	RouteKioskIdle:               "/kiosk/idle",
	RouteKioskIdleExpired:        "/kiosk/idle/expired",
	RouteKioskBegin:              "/kiosk/begin",
	RouteKioskDisplay:            "/kiosk/display",
	RouteStaffAccounts:           "/staff/accounts",
	RouteStaffAccountEndSessions: "/staff/accounts/:username/end-sessions",
	RouteStaffAccountUnlock:      "/staff/accounts/:username/unlock",
	RouteStaffDevices:            "/staff/devices",
	RouteStaffDeviceRevoke:       "/staff/devices/:id/revoke",
	RouteStaffDeviceLanguage:     "/staff/devices/:id/language",
	RouteStaffAudit:              "/staff/audit",
}
