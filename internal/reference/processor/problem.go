package processor

import (
	"encoding/json"
	"net/http"
)

// problemBase prefixes every problem type URI; the anchors are documented in
// the package README.
const problemBase = "https://github.com/resilcheck/resilcheck/blob/main/reference/processor/README.md#"

// problem is an RFC 9457 problem details object.
type problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
}

func problemBody(status int, anchor, title, detail string) []byte {
	b, _ := json.Marshal(problem{Type: problemBase + anchor, Title: title, Status: status, Detail: detail})
	return b
}

func writeProblem(w http.ResponseWriter, status int, anchor, title, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_, _ = w.Write(problemBody(status, anchor, title, detail))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
