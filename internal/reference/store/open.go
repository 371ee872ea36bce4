package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ErrBadURL reports a store URL Open does not understand. Callers map it to a
// usage error; the wrapped message lists the accepted forms.
var ErrBadURL = errors.New("store: bad store URL")

// URLForms lists the store URL forms Open accepts, for usage messages.
const URLForms = `sqlite:PATH, sqlite::memory: (or "sqlite:"), postgres://… or postgresql://…`

// Open returns the Store named by url:
//
//   - "sqlite:PATH" opens (creating if needed) the SQLite file PATH; several
//     processes may share it.
//   - "sqlite::memory:" or "sqlite:" opens a private in-memory database that
//     lives until Close (one process only).
//   - "postgres://…" or "postgresql://…" connects a pgx pool and creates the
//     schema if it is missing.
//
// Any other form fails with an error wrapping ErrBadURL. Open blocks until the
// database answers or ctx ends.
func Open(ctx context.Context, url string) (Store, error) {
	switch {
	case strings.HasPrefix(url, "sqlite:"):
		return openSQLite(ctx, strings.TrimPrefix(url, "sqlite:"))
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		return openPostgres(ctx, url)
	default:
		return nil, fmt.Errorf("%w %q: want %s", ErrBadURL, redact(url), URLForms)
	}
}

// redact hides a password so that an error message can be logged safely.
func redact(url string) string {
	at := strings.LastIndex(url, "@")
	scheme := strings.Index(url, "://")
	if at < 0 || scheme < 0 || at < scheme {
		return url
	}
	userinfo := url[scheme+3 : at]
	if user, _, ok := strings.Cut(userinfo, ":"); ok {
		return url[:scheme+3] + user + ":xxxxx" + url[at:]
	}
	return url
}
