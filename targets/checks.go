package targets

import (
	"fmt"
	"mime"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// urlProblem returns why s is not an absolute http(s) URL with a host, or "".
func urlProblem(s string) string {
	u, err := url.Parse(s)
	switch {
	case s == "":
		return "required; expected an http(s) URL such as http://127.0.0.1:8080"
	case err != nil:
		return fmt.Sprintf("not a URL (%v); expected something like http://127.0.0.1:8080", unwrapURLErr(err))
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("expected an http:// or https:// URL, got %q", s)
	case u.Host == "":
		return fmt.Sprintf("expected a host in %q, e.g. http://127.0.0.1:8080", s)
	case u.Port() != "" && !validPort(u.Port(), false):
		return fmt.Sprintf("port %q out of range 1-65535", u.Port())
	}
	return ""
}

func unwrapURLErr(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// pathOrURLProblem accepts "/path" or an absolute http(s) URL.
func pathOrURLProblem(s string) string {
	if strings.HasPrefix(s, "/") {
		if _, err := url.Parse(s); err != nil {
			return fmt.Sprintf("not a valid path (%v)", unwrapURLErr(err))
		}
		return ""
	}
	if msg := urlProblem(s); msg != "" {
		return "expected a path starting with / or an http(s) URL: " + msg
	}
	return ""
}

func validPort(p string, zeroOK bool) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n <= 65535 && (n > 0 || zeroOK && n == 0)
}

// listenProblem returns why s is not host:port, or "".
func listenProblem(s string, zeroOK bool) string {
	host, port, err := net.SplitHostPort(s)
	if err != nil || strings.Contains(host, "/") {
		return fmt.Sprintf("expected host:port such as 127.0.0.1:9091, got %q", s)
	}
	if !validPort(port, zeroOK) {
		return fmt.Sprintf("port %q out of range 1-65535", port)
	}
	return ""
}

// isToken reports whether s is an RFC 9110 token (header names, methods).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", c)) {
			return false
		}
	}
	return true
}

func headerProblem(s string) string {
	if !isToken(s) {
		return fmt.Sprintf("expected a header name such as Idempotency-Key, got %q", s)
	}
	return ""
}

func methodProblem(s string) string {
	switch {
	case !isToken(s):
		return fmt.Sprintf("expected an HTTP method such as POST, got %q", s)
	case s != strings.ToUpper(s):
		return fmt.Sprintf("methods are case-sensitive; did you mean %s?", strings.ToUpper(s))
	}
	return ""
}

func mediaTypeProblem(s string) string {
	if _, _, err := mime.ParseMediaType(s); err != nil {
		return fmt.Sprintf("expected a media type such as application/json, got %q (%v)", s, err)
	}
	return ""
}

var namePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

func envNameProblem(s string) string {
	if s == "" || strings.ContainsAny(s, "=\x00") {
		return fmt.Sprintf("not a valid environment variable name: %q", s)
	}
	return ""
}
