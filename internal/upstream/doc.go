// Package upstream is the typed client of the cinema ticketing API and of the
// redirect payment provider. It is the only code of the BFF that speaks HTTP
// to them.
//
// Wire types (unexported, wire_*.go) mirror the contract's field names and
// casing exactly; convert.go turns them into the plain domain types of
// internal/cinema, once. Refusals, whether carried by the HTTP status or by
// the codes of a 200 body, become *Error values that match the sentinel
// errors of errors.go with errors.Is.
//
// See docs/upstream-client.md for options, the error mapping and the
// enumeration mappings.
package upstream
