package upstream

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// jsonUnmarshalString decodes a JSON string, taking the fast path when it
// has no escapes.
func jsonUnmarshalString(b []byte, s *string) error {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' && bytes.IndexByte(b[1:len(b)-1], '\\') < 0 && bytes.IndexByte(b[1:len(b)-1], '"') < 0 {
		*s = string(b[1 : len(b)-1])
		return nil
	}
	return json.Unmarshal(b, s)
}

// flexString is a wire value whose type the contract does not show (deal and
// loyalty identifiers): a string, a number or a boolean is kept as its text.
// Used behind a pointer, so JSON null stays nil.
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return typeErr(b, reflect.TypeFor[flexString]())
	}
	switch b[0] {
	case '"':
		var s string
		if err := jsonUnmarshalString(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
	case 'n':
		*f = ""
	case '{', '[':
		// An object or array where a scalar was expected: keep its text so
		// nothing is lost, without failing the whole answer.
		*f = flexString(b)
	default:
		*f = flexString(b)
	}
	return nil
}

func (f flexString) MarshalJSON() ([]byte, error) { return json.Marshal(string(f)) }

// flexInt is an integer that some deployments send as a string
// (limitPerOrder). Behind a pointer, null stays nil.
type flexInt int64

func (f *flexInt) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := jsonUnmarshalString(b, &s); err != nil {
			return typeErr(b, reflect.TypeFor[flexInt]())
		}
		b = []byte(strings.TrimSpace(s))
	}
	if string(b) == "null" || len(b) == 0 {
		*f = 0
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		// 1250.0 is an integer; 12.5 is not, and truncating it would show
		// a wrong amount as if it were right.
		fl, ferr := strconv.ParseFloat(string(b), 64)
		if ferr != nil || fl != math.Trunc(fl) || math.Abs(fl) > 1<<53 {
			return typeErr(b, reflect.TypeFor[flexInt]())
		}
		n = int64(fl)
	}
	*f = flexInt(n)
	return nil
}

func (f flexInt) MarshalJSON() ([]byte, error) { return strconv.AppendInt(nil, int64(f), 10), nil }

// ticketingCodes is the envelope of the PascalCase ticketing responses.
type ticketingCodes struct {
	Result             flexInt     `json:"Result"`
	ExtendedResultCode flexInt     `json:"ExtendedResultCode"`
	ErrorDescription   *flexString `json:"ErrorDescription"`
}

func (e *ticketingCodes) resultCodes() codes {
	return codes{Result: int(e.Result), ExtendedResultCode: int(e.ExtendedResultCode), Description: string(deref(e.ErrorDescription))}
}

// camelCodes is the envelope of the camelCase edit and swap responses.
type camelCodes struct {
	Result             flexInt     `json:"result"`
	ExtendedResultCode flexInt     `json:"extendedResultCode"`
	ErrorDescription   *flexString `json:"errorDescription"`
	Reason             string      `json:"reason,omitempty"`
}

func (e *camelCodes) resultCodes() codes {
	return codes{Result: int(e.Result), ExtendedResultCode: int(e.ExtendedResultCode), Description: string(deref(e.ErrorDescription)), Reason: e.Reason}
}

// bookingCodes is the envelope of the booking (RESTBooking.svc) responses.
type bookingCodes struct {
	ResultCode         flexInt     `json:"ResultCode"`
	ExtendedResultCode flexInt     `json:"ExtendedResultCode"`
	ErrorDescription   *flexString `json:"ErrorDescription"`
}

func (e *bookingCodes) resultCodes() codes {
	return codes{Result: int(e.ResultCode), ExtendedResultCode: int(e.ExtendedResultCode), Description: string(deref(e.ErrorDescription))}
}

// dataCodes is the envelope of the data (RESTData.svc) responses.
type dataCodes struct {
	ResponseCode     flexInt     `json:"ResponseCode"`
	ErrorDescription *flexString `json:"ErrorDescription"`
}

func (e *dataCodes) resultCodes() codes {
	return codes{Result: int(e.ResponseCode), Description: string(deref(e.ErrorDescription))}
}

func deref[T any](p *T) T {
	var z T
	if p == nil {
		return z
	}
	return *p
}

func ptr[T any](v T) *T { return &v }

// rawJSON keeps an item whose fields the contract does not show, unread.
type rawJSON struct{}

func (*rawJSON) UnmarshalJSON([]byte) error { return nil }
