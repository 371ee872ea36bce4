package targets

import (
	"bytes"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/template"
	"text/template/parse"
)

// RequestValues are the values operation and probe templates see. The harness
// chooses them per request.
type RequestValues struct {
	Key    string // the idempotency key of this logical operation
	Amount int    // a positive amount, different per logical operation
	Tenant string // the tenant the request is made as; empty when tenancy is disabled
	Seq    int    // the logical operation's sequence number in the run, from 1
}

// ProcessValues are the values kind-process templates (command, env,
// service.url) see. The harness chooses them before starting the process.
type ProcessValues struct {
	Port         int               // the port the service must listen on
	TempDir      string            // a fresh directory, removed after the run
	Dependencies map[string]string // dependency name → its proxy's base URL, e.g. http://127.0.0.1:9091
	// Tiers maps each tier but the first to its hop proxy's base URL: the
	// address the tier above must call it at, e.g. http://127.0.0.1:9092.
	Tiers map[string]string
	// Ports maps each NAME the spec writes as {{.Ports.NAME}} to a free
	// loopback port, distinct from the others and from Port, the same
	// wherever NAME appears (command, env, service.url, dependency upstreams).
	Ports map[string]int
	// CAFile is a PEM file of the run's CA followed by the system roots,
	// when a dependency is declared tls (else empty): the file a client
	// that takes a CA bundle path must be given. The harness also sets
	// SSL_CERT_FILE, NODE_EXTRA_CA_CERTS, REQUESTS_CA_BUNDLE and
	// CURL_CA_BUNDLE to it unless process.env sets them.
	CAFile string
	// Broker is the URL of the broker resilcheck started for the
	// queue_consumer section, e.g. nats://127.0.0.1:4222; empty when the
	// spec declares no queue consumer.
	Broker string
}

// UpstreamValues are the values a kind-process dependency's upstream
// template sees: the named free ports, so a real dependency the target's
// command starts can listen on one ({{.Ports.NAME}}).
type UpstreamValues struct {
	Ports map[string]int
}

// portNamePattern is what NAME in {{.Ports.NAME}} may be.
var portNamePattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// PortNames returns, sorted, every NAME the spec's kind-process templates
// write as {{.Ports.NAME}}: in process.command, process.env, service.url and
// the dependencies' upstreams. Each gets a free port at launch. A template
// that does not parse adds nothing (Validate reports it).
func (t *Target) PortNames() []string {
	if t.Kind != KindProcess && (t.Kind != "" || isZero(t.Process)) {
		return nil
	}
	texts := append(slices.Clone(t.Process.Command), t.Service.URL)
	for _, k := range sortedKeys(t.Process.Env) {
		texts = append(texts, t.Process.Env[k])
	}
	for _, d := range t.Dependencies {
		texts = append(texts, d.Upstream)
	}
	for _, tr := range t.Tiers {
		texts = append(texts, tr.URL)
	}
	seen := map[string]bool{}
	for _, text := range texts {
		if !strings.Contains(text, "{{") {
			continue
		}
		tmpl, err := template.New("").Parse(text)
		if err != nil || tmpl.Tree == nil {
			continue
		}
		c := fieldChecker{typ: reflect.TypeOf(ProcessValues{}), names: t.templateNames(), ports: seen}
		c.node(tmpl.Tree.Root, true)
	}
	return slices.Sorted(maps.Keys(seen))
}

// ComposeValues are the values kind-compose env templates see.
type ComposeValues struct {
	Project string // the compose project name
	// Dependencies maps a dependency name to its proxy's base URL as
	// containers reach it, e.g. http://host.docker.internal:9091.
	Dependencies map[string]string
	// Tiers maps each tier but the first to its hop proxy's base URL as
	// containers reach it: where the tier above must call it.
	Tiers map[string]string
	// CAFile is the host path of the run's CA bundle (see
	// ProcessValues.CAFile) when a dependency is declared tls, else empty:
	// mount it into the containers that call the dependency.
	CAFile string
}

// templateNames are the names templates may index .Dependencies and .Tiers
// by: the declared ones, so a reference to one stops no walk.
func (t *Target) templateNames() map[string][]string {
	names := map[string][]string{"Dependencies": nil, "Tiers": nil}
	add := func(field, name string) {
		if !slices.Contains(names[field], name) {
			names[field] = append(names[field], name)
		}
	}
	for _, d := range t.Dependencies {
		add("Dependencies", d.Name)
	}
	for i, tr := range t.Tiers {
		if i > 0 {
			add("Tiers", tr.Name)
		}
	}
	return names
}

// Render expands the text/template text with data. Missing map keys (such
// as a dependency without a proxy URL) are errors.
func Render(text string, data any) (string, error) {
	s, err := render(text, data)
	if err != nil {
		return "", fmt.Errorf("targets: %w", err)
	}
	return s, nil
}

func render(text string, data any) (string, error) {
	tmpl, err := parsed(text)
	if err != nil {
		return "", fmt.Errorf("bad template: %s", trimTemplateErr(err))
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, data); err != nil {
		return "", fmt.Errorf("rendering template: %s", trimTemplateErr(err))
	}
	return b.String(), nil
}

// templates caches the templates render has parsed, by text: a spec's few
// templates are rendered for every request a check sends, and parsing each
// time dominated rendering. A parsed template is only executed, which is
// safe in parallel. The cap keeps callers rendering many distinct texts
// from growing it without bound; past it, texts are parsed every time.
var templates = struct {
	sync.Mutex
	m map[string]*template.Template
}{m: map[string]*template.Template{}}

const maxCachedTemplates = 1024

// parsed returns text parsed with missingkey=error, from templates when it
// was parsed before. A text that fails to parse is not cached.
func parsed(text string) (*template.Template, error) {
	templates.Lock()
	tmpl, ok := templates.m[text]
	templates.Unlock()
	if ok {
		return tmpl, nil
	}
	tmpl, err := template.New("").Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, err
	}
	templates.Lock()
	if len(templates.m) < maxCachedTemplates {
		templates.m[text] = tmpl
	}
	templates.Unlock()
	return tmpl, nil
}

// checkTemplate parses text and returns why it is unusable with data's type,
// or "". It walks the whole tree, so fields in branches not taken are checked
// too; names gives the entries each map field (.Dependencies, .Tiers) may
// be indexed by.
func checkTemplate(text string, sample any, names map[string][]string) string {
	tmpl, err := template.New("").Option("missingkey=error").Parse(text)
	if err != nil {
		return "bad template: " + trimTemplateErr(err)
	}
	c := fieldChecker{typ: reflect.TypeOf(sample), names: names}
	if tmpl.Tree != nil {
		c.node(tmpl.Tree.Root, true)
	}
	if c.bad != "" {
		return c.bad
	}
	if err := tmpl.Execute(&bytes.Buffer{}, sample); err != nil {
		return "template fails on sample values: " + trimTemplateErr(err)
	}
	return ""
}

func trimTemplateErr(err error) string {
	s := err.Error()
	// "template: :1:5: executing ..." / "template: :1: unexpected ..."
	s = strings.TrimPrefix(s, "template: :")
	if i := strings.Index(s, ": "); i >= 0 && strings.Trim(s[:i], "0123456789:") == "" {
		s = s[i+2:]
	}
	return s
}

// fieldChecker reports the first field reference the values type lacks,
// and collects the names used as .Ports.NAME into ports when it is set.
type fieldChecker struct {
	typ   reflect.Type
	names map[string][]string // map field → the names it may be indexed by
	ports map[string]bool
	bad   string
}

// node walks n; dotKnown is false inside range and with, where dot changes.
func (c *fieldChecker) node(n parse.Node, dotKnown bool) {
	if c.bad != "" || n == nil || reflect.ValueOf(n).IsNil() {
		return
	}
	switch n := n.(type) {
	case *parse.ListNode:
		for _, x := range n.Nodes {
			c.node(x, dotKnown)
		}
	case *parse.ActionNode:
		c.node(n.Pipe, dotKnown)
	case *parse.IfNode:
		c.branch(&n.BranchNode, dotKnown, dotKnown)
	case *parse.RangeNode:
		c.branch(&n.BranchNode, dotKnown, false)
	case *parse.WithNode:
		c.branch(&n.BranchNode, dotKnown, false)
	case *parse.TemplateNode:
		c.node(n.Pipe, dotKnown)
	case *parse.PipeNode:
		for _, cmd := range n.Cmds {
			for _, arg := range cmd.Args {
				c.node(arg, dotKnown)
			}
		}
	case *parse.ChainNode:
		c.node(n.Node, dotKnown)
	case *parse.FieldNode:
		if dotKnown {
			c.fields(n.Ident)
		}
	case *parse.VariableNode:
		if len(n.Ident) > 1 && n.Ident[0] == "$" {
			c.fields(n.Ident[1:])
		}
	}
}

func (c *fieldChecker) branch(b *parse.BranchNode, dotKnown, bodyDotKnown bool) {
	c.node(b.Pipe, dotKnown)
	c.node(b.List, bodyDotKnown)
	c.node(b.ElseList, dotKnown)
}

func (c *fieldChecker) fields(ident []string) {
	f, ok := c.typ.FieldByName(ident[0])
	if !ok {
		c.bad = fmt.Sprintf("template uses .%s; known values: %s", ident[0], valueNames(c.typ))
		return
	}
	if f.Name == "Ports" && f.Type == reflect.TypeFor[map[string]int]() {
		switch {
		case len(ident) == 1:
			c.bad = "template uses .Ports without a name; write {{.Ports.NAME}} (NAME: letters, digits and _, starting with a letter) for a free port named NAME"
		case !portNamePattern.MatchString(ident[1]):
			c.bad = fmt.Sprintf("template uses .Ports.%s; a port's NAME is letters, digits and _, starting with a letter", ident[1])
		case c.ports != nil:
			c.ports[ident[1]] = true
		}
		return
	}
	if f.Type.Kind() == reflect.Map && len(ident) > 1 && !containsFold(c.names[f.Name], ident[1], false) {
		what := "dependency"
		if f.Name == "Tiers" {
			what = "tier behind the first"
		}
		c.bad = fmt.Sprintf("template uses .%s.%s but no %s is named %q; declared: %s",
			ident[0], ident[1], what, ident[1], orNone(c.names[f.Name]))
	}
}

func valueNames(t reflect.Type) string {
	var names []string
	for f := range t.Fields() {
		names = append(names, "."+f.Name)
	}
	return strings.Join(names, " ")
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// containsFold reports whether list holds s (case-insensitively if fold).
func containsFold(list []string, s string, fold bool) bool {
	for _, x := range list {
		if x == s || fold && strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
