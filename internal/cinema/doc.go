// Package cinema holds the BFF's own domain types: money, cinemas, films,
// sessions, seat plans, bookings, orders, edit orders and order details.
//
// The types are plain Go values with no JSON tags and no knowledge of HTTP.
// They are produced by internal/upstream, which owns the one conversion from
// the ticketing API's wire shapes, and consumed by the flows and the views.
//
// Enumerations use their zero value for "unknown", so a value the upstream
// sent that nobody mapped is never mistaken for success.
package cinema
