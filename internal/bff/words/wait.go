package words

// WholeSeconds rounds a wait up to whole seconds (at least one), as a Retry-After header and
// the words "wait n seconds" give it.
func WholeSeconds(seconds float64) int {
	n := int(seconds + 0.999)
	if n < 1 {
		n = 1
	}
	return n
}
