package store

import (
	"context"
	"strings"
	"testing"
)

// A query with trailing text still works but silently loses the statement
// cache: modernc.org/sqlite then parses it again on every call.
func TestSQLiteQueries_NoTrailingText(t *testing.T) {
	for _, q := range sqliteQueries(&sqliteStmts{}) {
		if trimmed := strings.TrimRight(q.query, " \t\r\n;"); trimmed != q.query {
			t.Errorf("query ends with %q after %q; drop the trailing text", q.query[len(trimmed):], trimmed[max(0, len(trimmed)-40):])
		}
	}
}

func TestSQLiteStore_Close(t *testing.T) {
	ctx := context.Background()
	st, err := openSQLite(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := st.Lookup(ctx, "t", "k"); err == nil {
		t.Error("Lookup after Close succeeded")
	}
	if err := st.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
