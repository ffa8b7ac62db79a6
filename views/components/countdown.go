package components

import (
	"context"

	"github.com/a-h/templ"

	"github.com/cinemabff/cinemabff/internal/i18n"
)

// CountdownWords are the words static/js/app.js speaks for a countdown
// ([data-countdown-expires]), in the page's language: templates with {n} for the minutes left
// and the warning, and the end. Spread them onto the countdown's element:
//
//	<div class="countdown" data-countdown-expires={ … } { components.CountdownWords(ctx)... }>
func CountdownWords(ctx context.Context) templ.Attributes {
	l := i18n.FromContext(ctx)
	return templ.Attributes{
		// "Count" after N's own: the template keeps {n} for the script to fill.
		"data-countdown-left":     l.N("common.minutes_left", 2, "Count", "{n}"),
		"data-countdown-left-one": l.N("common.minutes_left", 1, "Count", "{n}"),
		"data-countdown-less":     l.N("ui.countdown.less_than", 2, "Count", "{n}"),
		"data-countdown-less-one": l.N("ui.countdown.less_than", 1, "Count", "{n}"),
		"data-countdown-time-up":  l.T("ui.countdown.time_up"),
	}
}
