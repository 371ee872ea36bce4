package faults

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ErrAdminExposed: the admin API was asked to listen beyond loopback
// without a token.
var ErrAdminExposed = errors.New("faults: admin API on a non-loopback address needs a token")

// AdminOption configures NewAdmin.
type AdminOption func(*admin)

// WithToken requires "Authorization: Bearer token" on every admin request.
func WithToken(token string) AdminOption { return func(a *admin) { a.token = token } }

type admin struct {
	p     *Proxy
	token string
}

// NewAdmin returns the HTTP admin API of p:
//
//	GET    /rules            the rules, as JSON (the shape PUT accepts)
//	POST   /rules            add one rule (JSON); 201, 400 invalid, 409 duplicate
//	PUT    /rules            replace all rules atomically (JSON list)
//	DELETE /rules/{name}     remove a rule; 204 or 404
//	POST   /reset            remove every rule; 204
//	GET    /journal          JSON lines; ?side= &after=SEQ &header=Name:value &rule= &wait=30s
//	GET    /status           side, seed, upstream, rule counters, journal size
//	GET    /metrics          Prometheus text format
//
// Requests that carry an Origin header (browsers) are refused, and without
// a token so are requests whose Host is not a loopback name or the address
// the API listens on (DNS rebinding).
func NewAdmin(p *Proxy, opts ...AdminOption) http.Handler {
	a := &admin{p: p}
	for _, o := range opts {
		o(a)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /rules", a.listRules)
	mux.HandleFunc("POST /rules", a.addRule)
	mux.HandleFunc("PUT /rules", a.replaceRules)
	mux.HandleFunc("DELETE /rules/{name}", a.removeRule)
	mux.HandleFunc("POST /reset", a.reset)
	mux.HandleFunc("GET /journal", a.journal)
	mux.HandleFunc("GET /status", a.status)
	mux.Handle("GET /metrics", p.MetricsHandler())
	return a.guard(mux)
}

// ListenAdmin listens on addr for the admin API, refusing an address that
// is not loopback unless token is set (ErrAdminExposed).
func ListenAdmin(addr, token string) (net.Listener, error) {
	if host, _, err := net.SplitHostPort(addr); token == "" && (err != nil || !loopbackName(host)) {
		return nil, fmt.Errorf("%w (%s)", ErrAdminExposed, addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("faults: admin listen: %w", err)
	}
	if ta, ok := l.Addr().(*net.TCPAddr); token == "" && (!ok || !ta.IP.IsLoopback()) {
		l.Close()
		return nil, fmt.Errorf("%w (%s)", ErrAdminExposed, addr)
	}
	return l, nil
}

func loopbackName(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// localHost reports whether r's Host names a loopback host or the address
// the connection reached, with any port.
func localHost(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = strings.TrimSuffix(strings.TrimPrefix(r.Host, "["), "]")
	}
	if loopbackName(host) {
		return true
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	bound, _, err := net.SplitHostPort(local.String())
	return err == nil && host != "" && host == bound
}

func (a *admin) guard(next http.Handler) http.Handler {
	want := []byte("Bearer " + a.token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Header.Get("Origin") != "":
			adminError(w, http.StatusForbidden, errors.New("faults: admin API refuses browser requests"))
		case a.token == "" && !localHost(r):
			// A page whose name was rebound to this address sends its own
			// name, and a same-origin GET carries no Origin. 421: this
			// server does not answer for that authority (RFC 9110 §15.5.20).
			adminError(w, http.StatusMisdirectedRequest, fmt.Errorf("faults: admin API answers only for a loopback name or its own address, not %q", r.Host))
		case a.token != "" && subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1:
			w.Header().Set("WWW-Authenticate", "Bearer")
			adminError(w, http.StatusUnauthorized, errors.New("faults: admin API needs a bearer token"))
		default:
			r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
			next.ServeHTTP(w, r)
		}
	})
}

func adminError(w http.ResponseWriter, status int, err error) {
	writeJSON(w, status, map[string]any{"error": err.Error(), "status": status})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func (a *admin) listRules(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, a.p.Rules().List())
}

func (a *admin) addRule(w http.ResponseWriter, r *http.Request) {
	var rule Rule
	if err := decodeBody(r, &rule); err != nil {
		adminError(w, http.StatusBadRequest, err)
		return
	}
	if err := a.p.Rules().Add(rule); err != nil {
		status := http.StatusBadRequest
		if errors.Is(err, ErrDuplicateRule) {
			status = http.StatusConflict
		}
		adminError(w, status, err)
		return
	}
	writeJSON(w, http.StatusCreated, rule)
}

func (a *admin) replaceRules(w http.ResponseWriter, r *http.Request) {
	var rules []Rule
	if err := decodeBody(r, &rules); err != nil {
		adminError(w, http.StatusBadRequest, err)
		return
	}
	if err := a.p.Rules().Replace(rules...); err != nil {
		adminError(w, http.StatusBadRequest, err)
		return
	}
	writeJSON(w, http.StatusOK, a.p.Rules().List())
}

func decodeBody(r *http.Request, v any) error {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return fmt.Errorf("faults: read body: %w", err)
	}
	return json.Unmarshal(b, v)
}

func (a *admin) removeRule(w http.ResponseWriter, r *http.Request) {
	if !a.p.Rules().Remove(r.PathValue("name")) {
		adminError(w, http.StatusNotFound, fmt.Errorf("faults: no rule %q", r.PathValue("name")))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (a *admin) reset(w http.ResponseWriter, _ *http.Request) {
	a.p.Rules().Reset()
	w.WriteHeader(http.StatusNoContent)
}

func (a *admin) status(w http.ResponseWriter, _ *http.Request) {
	up := ""
	if u := a.p.Upstream(); u != nil {
		up = u.Redacted()
	}
	j := a.p.Journal()
	writeJSON(w, http.StatusOK, map[string]any{
		"side": a.p.Side(), "seed": a.p.Seed(), "url": a.p.URL(), "upstream": up,
		"rules": a.p.Rules().Stats(), "journal_entries": j.Len(), "journal_dropped": j.Dropped(),
	})
}

func (a *admin) journal(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	filters, err := journalFilters(q.Get("side"), q.Get("header"), q.Get("rule"))
	if err != nil {
		adminError(w, http.StatusBadRequest, err)
		return
	}
	after, _ := strconv.ParseUint(q.Get("after"), 10, 64)
	entries := a.p.Journal().After(after, filters...)
	if wait, _ := time.ParseDuration(q.Get("wait")); len(entries) == 0 && wait > 0 {
		ctx, cancel := context.WithTimeout(r.Context(), min(wait, time.Minute))
		entries, _ = a.p.Journal().Next(ctx, after, filters...)
		cancel()
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	_ = WriteJSONLines(w, entries)
}

func journalFilters(side, header, rule string) ([]Filter, error) {
	var fs []Filter
	if side != "" {
		fs = append(fs, BySide(side))
	}
	if rule != "" {
		fs = append(fs, ByRule(rule))
	}
	if header != "" {
		name, value, ok := strings.Cut(header, ":")
		if !ok {
			return nil, errors.New("faults: header filter must be Name:value")
		}
		fs = append(fs, ByHeader(strings.TrimSpace(name), strings.TrimSpace(value)))
	}
	return fs, nil
}
