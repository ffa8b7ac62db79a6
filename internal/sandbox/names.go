package sandbox

import _ "embed"

// NamesCatalog is the operator's names catalog (internal/names) of the default world: its ticket
// types, area categories, areas, offers and ratings by code, in English and German. The
// embedded default (`go run ./cmd/web` with no settings) uses it.
//
//go:embed names.json
var NamesCatalog []byte
