package payprovider

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The Terminal endpoints. They run under p.mu.

// What each Terminal endpoint accepts. Anything else is parameter_unknown.
var (
	pageParams = map[string]*param{
		"limit":          scalar,
		"starting_after": scalar,
		"ending_before":  scalar,
		"expand":         list(scalar),
	}

	locationCreateParams = hash(map[string]*param{
		"display_name": scalar,
		"address": hash(map[string]*param{
			"line1":       scalar,
			"line2":       scalar,
			"city":        scalar,
			"state":       scalar,
			"postal_code": scalar,
			"country":     scalar,
		}),
		"metadata": strMap,
		"expand":   list(scalar),
	})

	locationListParams = hash(pageParams)

	readerCreateParams = hash(map[string]*param{
		"registration_code": scalar,
		"label":             scalar,
		"location":          scalar,
		"metadata":          strMap,
		"expand":            list(scalar),
	})

	readerUpdateParams = hash(map[string]*param{
		"label":    scalar,
		"metadata": strMap,
		"expand":   list(scalar),
	})

	readerListParams = hash(withFields(pageParams, map[string]*param{
		"location":      scalar,
		"status":        scalar,
		"device_type":   scalar,
		"serial_number": scalar,
	}))

	// process_config is accepted whole; only skip_tipping is kept.
	processParams = hash(map[string]*param{
		"payment_intent": scalar,
		"process_config": hash(map[string]*param{
			"skip_tipping":                 scalar,
			"enable_customer_cancellation": scalar,
			"allow_redisplay":              scalar,
			"return_url":                   scalar,
			"tipping":                      hash(map[string]*param{"amount_eligible": scalar}),
		}),
		"expand": list(scalar),
	})

	presentParams = hash(map[string]*param{
		"type":         scalar,
		"card_present": hash(map[string]*param{"number": scalar}),
		"amount_tip":   scalar,
		"expand":       list(scalar),
	})

	noParams = hash(map[string]*param{})
)

// What a reader lets expand[] reach: the intent its action is taking (to see
// the amount), and its location.
var (
	readerExpandable = []string{
		"location",
		"action.process_payment_intent.payment_intent",
		"action.process_payment_intent.payment_intent.latest_charge",
	}
	readerListExpandable = prefixed("data.", readerExpandable)
)

func withFields(a, b map[string]*param) map[string]*param {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}

func prefixed(prefix string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = prefix + p
	}
	return out
}

func (p *Provider) createLocation(c *apiCall, _ *effects) (any, *apiError) {
	if err := c.form.check(locationCreateParams, ""); err != nil {
		return nil, err
	}
	name, err := requiredStr(c.form, "display_name", "display_name")
	if err != nil {
		return nil, err
	}
	if err := checkLength(name, "display_name", 1000); err != nil {
		return nil, err
	}
	addr, err := locationAddress(c.form)
	if err != nil {
		return nil, err
	}
	md, err := checkMetadata(c.form.strMap("metadata"), "metadata")
	if err != nil {
		return nil, err
	}
	if _, err := parseExpand(c.form, nil); err != nil {
		return nil, err
	}
	l := &TerminalLocation{ID: newID("tml_", 14), DisplayName: name, Address: addr, Metadata: md, Created: p.now(), seq: p.nextSeqLocked()}
	p.locations[l.ID] = l
	return locationJSONOf(l), nil
}

// locationAddress reads address[…]: required, with a country (Stripe asks
// for an address unless a Japanese kana/kanji one is given, which the
// sandbox does not take).
func locationAddress(f *fnode) (TerminalAddress, *apiError) {
	a := f.child("address")
	if a == nil || a.kids == nil {
		return TerminalAddress{}, missingParam("address")
	}
	country, err := requiredStr(a, "country", "address[country]")
	if err != nil {
		return TerminalAddress{}, err
	}
	country = strings.ToUpper(country)
	if len(country) != 2 || strings.ContainsFunc(country, func(r rune) bool { return r < 'A' || r > 'Z' }) {
		return TerminalAddress{}, invalidParam("address[country]", "",
			fmt.Sprintf("Country '%s' is unknown. Try using a 2-character alphanumeric country code instead, such as 'US', 'EG', or 'GB'.", country))
	}
	out := TerminalAddress{Country: country}
	out.Line1, _ = a.str("line1")
	out.Line2, _ = a.str("line2")
	out.City, _ = a.str("city")
	out.State, _ = a.str("state")
	out.PostalCode, _ = a.str("postal_code")
	return out, nil
}

func (p *Provider) retrieveLocation(c *apiCall, _ *effects) (any, *apiError) {
	if _, err := expandParams(c.form, nil); err != nil {
		return nil, err
	}
	l := p.locations[c.id]
	if l == nil {
		return nil, noSuch("terminal.location", c.id, "id")
	}
	return locationJSONOf(l), nil
}

func (p *Provider) listLocations(c *apiCall, _ *effects) (any, *apiError) {
	if err := c.form.check(locationListParams, ""); err != nil {
		return nil, err
	}
	if _, err := parseExpand(c.form, nil); err != nil {
		return nil, err
	}
	page, more, err := listPage(p.locationsLocked(), func(l *TerminalLocation) string { return l.ID }, c.form, "terminal.location")
	if err != nil {
		return nil, err
	}
	data := make([]any, 0, len(page))
	for _, l := range page {
		data = append(data, locationJSONOf(l))
	}
	return listJSON{Object: "list", Data: data, HasMore: more, URL: "/v1/terminal/locations"}, nil
}

func (p *Provider) createReader(c *apiCall, _ *effects) (any, *apiError) {
	if err := c.form.check(readerCreateParams, ""); err != nil {
		return nil, err
	}
	code, err := requiredStr(c.form, "registration_code", "registration_code")
	if err != nil {
		return nil, err
	}
	if _, ok := registrationCodes[code]; !ok {
		// Stripe has no error code of its own for this; param names the culprit.
		return nil, invalidParam("registration_code", "", fmt.Sprintf(
			"The registration code %q is invalid. The sandbox registers only Stripe's simulated readers: simulated-wpe (a simulated WisePOS E) or simulated-s700 (a simulated Stripe Reader S700).", code))
	}
	label, _ := c.form.str("label")
	if err := checkLength(label, "label", 5000); err != nil {
		return nil, err
	}
	locID, err := requiredStr(c.form, "location", "location")
	if err != nil {
		return nil, err
	}
	if p.locations[locID] == nil {
		return nil, noSuchParam("terminal.location", locID, "location")
	}
	md, err := checkMetadata(c.form.strMap("metadata"), "metadata")
	if err != nil {
		return nil, err
	}
	exp, err := parseExpand(c.form, readerExpandable)
	if err != nil {
		return nil, err
	}
	r := p.newReaderLocked(newID("tmr_", 24), code, label, locID, md)
	return p.readerJSONLocked(r, exp), nil
}

// readerOf is the reader of the URL.
func (p *Provider) readerOf(c *apiCall) (*TerminalReader, *apiError) {
	r := p.readers[c.id]
	if r == nil {
		return nil, noSuch("terminal.reader", c.id, "id")
	}
	return r, nil
}

func (p *Provider) retrieveReader(c *apiCall, _ *effects) (any, *apiError) {
	exp, err := expandParams(c.form, readerExpandable)
	if err != nil {
		return nil, err
	}
	r, err := p.readerOf(c)
	if err != nil {
		return nil, err
	}
	return p.readerJSONLocked(r, exp), nil
}

func (p *Provider) updateReader(c *apiCall, _ *effects) (any, *apiError) {
	if err := c.form.check(readerUpdateParams, ""); err != nil {
		return nil, err
	}
	exp, err := parseExpand(c.form, readerExpandable)
	if err != nil {
		return nil, err
	}
	r, err := p.readerOf(c)
	if err != nil {
		return nil, err
	}
	label, setLabel := c.form.str("label")
	if err := checkLength(label, "label", 5000); err != nil {
		return nil, err
	}
	md, err := mergeMetadata(r.Metadata, c.form)
	if err != nil {
		return nil, err
	}
	if setLabel {
		r.Label = label
	}
	r.Metadata = md
	return p.readerJSONLocked(r, exp), nil
}

// mergeMetadata applies an update's metadata[…] to old, as Stripe does: a
// key with an empty value is removed, "metadata=" (empty) removes them all.
func mergeMetadata(old map[string]string, f *fnode) (map[string]string, *apiError) {
	n := f.child("metadata")
	switch {
	case n == nil:
		return old, nil
	case n.kids == nil:
		return map[string]string{}, nil
	}
	out := cloneMap(old)
	for k, v := range f.strMap("metadata") {
		out[k] = v
	}
	return checkMetadata(out, "metadata")
}

func (p *Provider) deleteReader(c *apiCall, _ *effects) (any, *apiError) {
	if err := c.form.check(noParams, ""); err != nil {
		return nil, err
	}
	r, err := p.readerOf(c)
	if err != nil {
		return nil, err
	}
	delete(p.readers, r.ID)
	return deletedJSON{ID: r.ID, Object: "terminal.reader", Deleted: true}, nil
}

func (p *Provider) listReaders(c *apiCall, _ *effects) (any, *apiError) {
	f := c.form
	if err := f.check(readerListParams, ""); err != nil {
		return nil, err
	}
	exp, err := parseExpand(f, readerListExpandable)
	if err != nil {
		return nil, err
	}
	status, byStatus := f.str("status")
	if byStatus && status != ReaderOnline && status != ReaderOffline {
		return nil, invalidParam("status", "", "Invalid status: must be one of offline or online")
	}
	loc, byLoc := f.str("location")
	dev, byDev := f.str("device_type")
	serial, bySerial := f.str("serial_number")
	all := slices.DeleteFunc(p.readersLocked(), func(r *TerminalReader) bool {
		return byStatus && r.Status != status || byLoc && r.LocationID != loc || byDev && r.DeviceType != dev || bySerial && r.SerialNumber != serial
	})
	page, more, err := listPage(all, func(r *TerminalReader) string { return r.ID }, f, "terminal.reader")
	if err != nil {
		return nil, err
	}
	data := make([]any, 0, len(page))
	for _, r := range page {
		data = append(data, p.readerJSONLocked(r, exp.sub("data")))
	}
	return listJSON{Object: "list", Data: data, HasMore: more, URL: "/v1/terminal/readers"}, nil
}

func (p *Provider) processPaymentIntent(c *apiCall, _ *effects) (any, *apiError) {
	if err := c.form.check(processParams, ""); err != nil {
		return nil, err
	}
	exp, err := parseExpand(c.form, readerExpandable)
	if err != nil {
		return nil, err
	}
	piID, err := requiredStr(c.form, "payment_intent", "payment_intent")
	if err != nil {
		return nil, err
	}
	skip, err := boolParam(c.form.child("process_config"), "skip_tipping", "process_config[skip_tipping]")
	if err != nil {
		return nil, err
	}
	r, err := p.readerOf(c)
	if err != nil {
		return nil, err
	}
	if err := p.processLocked(r, piID, skip); err != nil {
		return nil, err
	}
	return p.readerJSONLocked(r, exp), nil
}

func (p *Provider) cancelReaderAction(c *apiCall, _ *effects) (any, *apiError) {
	exp, err := expandParams(c.form, readerExpandable)
	if err != nil {
		return nil, err
	}
	r, err := p.readerOf(c)
	if err != nil {
		return nil, err
	}
	if err := p.cancelActionLocked(r); err != nil {
		return nil, err
	}
	return p.readerJSONLocked(r, exp), nil
}

func (p *Provider) presentPaymentMethod(c *apiCall, _ *effects) (any, *apiError) {
	f := c.form
	if err := f.check(presentParams, ""); err != nil {
		return nil, err
	}
	exp, err := parseExpand(f, readerExpandable)
	if err != nil {
		return nil, err
	}
	if t, ok := f.str("type"); ok && t != "card_present" {
		return nil, invalidParam("type", "", fmt.Sprintf("The sandbox's readers take only type card_present, not %q.", t))
	}
	if tip, ok, err := f.integer("amount_tip", "amount_tip"); err != nil {
		return nil, err
	} else if ok && tip < 0 {
		return nil, invalidParam("amount_tip", "", "This value must be greater than or equal to 0.")
	}
	number, _ := f.child("card_present").str("number")
	r, err := p.readerOf(c)
	if err != nil {
		return nil, err
	}
	if err := p.presentLocked(r, number, c); err != nil {
		return nil, err
	}
	return p.readerJSONLocked(r, exp), nil
}

// boolParam reads an optional boolean parameter.
func boolParam(f *fnode, k, name string) (bool, *apiError) {
	v, ok := f.str(k)
	switch {
	case !ok, v == "false":
		return false, nil
	case v == "true":
		return true, nil
	}
	return false, invalidParam(name, "", "Invalid boolean: "+v)
}

// listPage cuts a list (newest first) as Stripe's list endpoints do: limit
// 1–100 (default 10), the items after starting_after or before
// ending_before, and whether more follow in that direction.
func listPage[T any](items []T, id func(T) string, f *fnode, object string) ([]T, bool, *apiError) {
	limit := int64(10)
	if v, ok, err := f.integer("limit", "limit"); err != nil {
		return nil, false, err
	} else if ok {
		if v < 1 || v > 100 {
			return nil, false, invalidParam("limit", "", "This value must be greater than or equal to 1 and less than or equal to 100.")
		}
		limit = v
	}
	after, _ := f.str("starting_after")
	before, _ := f.str("ending_before")
	if after != "" && before != "" {
		return nil, false, invalidParam("starting_after", "", "You may only specify one of these parameters: ending_before, starting_after.")
	}
	cursor := func(cid, param string) (int, *apiError) {
		i := slices.IndexFunc(items, func(t T) bool { return id(t) == cid })
		if i < 0 {
			return 0, noSuchParam(object, cid, param)
		}
		return i, nil
	}
	switch {
	case after != "":
		i, err := cursor(after, "starting_after")
		if err != nil {
			return nil, false, err
		}
		items = items[i+1:]
	case before != "":
		i, err := cursor(before, "ending_before")
		if err != nil {
			return nil, false, err
		}
		n := min(int64(i), limit)
		return items[int64(i)-n : i], int64(i) > n, nil
	}
	n := min(int64(len(items)), limit)
	return items[:n], int64(len(items)) > n, nil
}

// JSON shapes of the Terminal objects.

type locationJSON struct {
	ID          string            `json:"id"`
	Object      string            `json:"object"`
	Address     addressJSON       `json:"address"`
	DisplayName string            `json:"display_name"`
	Livemode    bool              `json:"livemode"`
	Metadata    map[string]string `json:"metadata"`
}

type processConfigJSON struct {
	SkipTipping bool `json:"skip_tipping"`
}

type processPaymentIntentJSON struct {
	PaymentIntent any               `json:"payment_intent"` // id, or the intent when expanded
	ProcessConfig processConfigJSON `json:"process_config"`
}

// readerActionJSON is a reader's action; failure_code and failure_message
// are null unless it failed.
type readerActionJSON struct {
	FailureCode          *string                   `json:"failure_code"`
	FailureMessage       *string                   `json:"failure_message"`
	ProcessPaymentIntent *processPaymentIntentJSON `json:"process_payment_intent"`
	Status               string                    `json:"status"`
	Type                 string                    `json:"type"`
}

type readerJSON struct {
	ID              string            `json:"id"`
	Object          string            `json:"object"`
	Action          *readerActionJSON `json:"action"`
	DeviceSwVersion string            `json:"device_sw_version"`
	DeviceType      string            `json:"device_type"`
	IPAddress       string            `json:"ip_address"`
	Label           string            `json:"label"`
	LastSeenAt      int64             `json:"last_seen_at"` // milliseconds, as Stripe's
	Livemode        bool              `json:"livemode"`
	Location        any               `json:"location"` // id, or the location when expanded
	Metadata        map[string]string `json:"metadata"`
	SerialNumber    string            `json:"serial_number"`
	Status          string            `json:"status"`
}

type deletedJSON struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Deleted bool   `json:"deleted"`
}

type listJSON struct {
	Object  string `json:"object"`
	Data    []any  `json:"data"`
	HasMore bool   `json:"has_more"`
	URL     string `json:"url"`
}

func locationJSONOf(l *TerminalLocation) locationJSON {
	a := l.Address
	return locationJSON{
		ID: l.ID, Object: "terminal.location", DisplayName: l.DisplayName, Metadata: cloneMap(l.Metadata),
		Address: addressJSON{City: optStr(a.City), Country: optStr(a.Country), Line1: optStr(a.Line1), Line2: optStr(a.Line2),
			PostalCode: optStr(a.PostalCode), State: optStr(a.State)},
	}
}

func (p *Provider) readerJSONLocked(r *TerminalReader, exp expansion) readerJSON {
	j := readerJSON{
		ID: r.ID, Object: "terminal.reader", DeviceSwVersion: r.DeviceSwVersion, DeviceType: r.DeviceType, IPAddress: "0.0.0.0",
		Label: r.Label, LastSeenAt: r.LastSeenAt.UnixMilli(), Location: r.LocationID, Metadata: cloneMap(r.Metadata),
		SerialNumber: r.SerialNumber, Status: r.Status,
	}
	if l := p.locations[r.LocationID]; l != nil && exp.has("location") {
		j.Location = locationJSONOf(l)
	}
	if a := r.Action; a != nil {
		const intentPath = "action.process_payment_intent.payment_intent"
		pp := &processPaymentIntentJSON{PaymentIntent: a.PaymentIntentID, ProcessConfig: processConfigJSON{SkipTipping: a.SkipTipping}}
		if pi := p.intents[a.PaymentIntentID]; pi != nil && exp.has(intentPath) {
			pp.PaymentIntent = p.intentJSONLocked(pi, exp.sub(intentPath))
		}
		j.Action = &readerActionJSON{FailureCode: optStr(a.FailureCode), FailureMessage: optStr(a.FailureMessage),
			ProcessPaymentIntent: pp, Status: a.Status, Type: a.Type}
	}
	return j
}
