package cli

import (
	"net/url"
	"regexp"

	"mvdan.cc/sh/v3/syntax"
)

// dsnPassword finds a password in a key=value connection string.
var dsnPassword = regexp.MustCompile(`(?i)(\bpassword\s*=\s*)('[^']*'|\S+)`)

// redactStore hides the password in a store URL or connection string, so a
// reproduce line printed into CI logs and reports leaks no credential.
func redactStore(s string) string {
	if u, err := url.Parse(s); err == nil && u.Scheme != "" && u.User != nil {
		if _, has := u.User.Password(); has {
			return u.Redacted()
		}
		return s
	}
	return dsnPassword.ReplaceAllString(s, "${1}xxxxx")
}

// shellWord quotes s for a POSIX shell when it needs it, so the reproduce
// line can be pasted as it is.
func shellWord(s string) string {
	q, err := syntax.Quote(s, syntax.LangPOSIX)
	if err != nil {
		return s // a NUL byte: nothing a shell could take anyway
	}
	return q
}
