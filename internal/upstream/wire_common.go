package upstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
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
		return fmt.Errorf("upstream: empty value")
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
			return err
		}
		b = []byte(s)
	}
	if string(b) == "null" || len(b) == 0 {
		*f = 0
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		fl, ferr := strconv.ParseFloat(string(b), 64)
		if ferr != nil {
			return fmt.Errorf("upstream: not an integer: %s", truncate(string(b), 32))
		}
		n = int64(fl)
	}
	*f = flexInt(n)
	return nil
}

func (f flexInt) MarshalJSON() ([]byte, error) { return strconv.AppendInt(nil, int64(f), 10), nil }

// ticketingCodes is the envelope of the PascalCase ticketing responses.
type ticketingCodes struct {
	Result             int     `json:"Result"`
	ExtendedResultCode int     `json:"ExtendedResultCode"`
	ErrorDescription   *string `json:"ErrorDescription"`
}

func (e *ticketingCodes) resultCodes() codes {
	return codes{Result: e.Result, ExtendedResultCode: e.ExtendedResultCode, Description: deref(e.ErrorDescription)}
}

// camelCodes is the envelope of the camelCase edit and swap responses.
type camelCodes struct {
	Result             int     `json:"result"`
	ExtendedResultCode int     `json:"extendedResultCode"`
	ErrorDescription   *string `json:"errorDescription"`
	Reason             string  `json:"reason,omitempty"`
}

func (e *camelCodes) resultCodes() codes {
	return codes{Result: e.Result, ExtendedResultCode: e.ExtendedResultCode, Description: deref(e.ErrorDescription), Reason: e.Reason}
}

// bookingCodes is the envelope of the booking (RESTBooking.svc) responses.
type bookingCodes struct {
	ResultCode         int     `json:"ResultCode"`
	ExtendedResultCode int     `json:"ExtendedResultCode"`
	ErrorDescription   *string `json:"ErrorDescription"`
}

func (e *bookingCodes) resultCodes() codes {
	return codes{Result: e.ResultCode, ExtendedResultCode: e.ExtendedResultCode, Description: deref(e.ErrorDescription)}
}

// dataCodes is the envelope of the data (RESTData.svc) responses.
type dataCodes struct {
	ResponseCode     int     `json:"ResponseCode"`
	ErrorDescription *string `json:"ErrorDescription"`
}

func (e *dataCodes) resultCodes() codes {
	return codes{Result: e.ResponseCode, Description: deref(e.ErrorDescription)}
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
