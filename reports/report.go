package reports

import "time"

// Schema identifies version 1 of the report format; Read rejects any other value.
const Schema = "resilcheck.report/v1"

// Verdict is the outcome of a whole run, the value CI gates on.
type Verdict string

// Verdicts of a run. Finalize derives one from the checks.
const (
	VerdictPass         Verdict = "pass"
	VerdictFail         Verdict = "fail"
	VerdictInconclusive Verdict = "inconclusive"
	VerdictInterrupted  Verdict = "interrupted"
)

// Status is the outcome of one check.
type Status string

// Statuses of a check. Not applicable and inconclusive checks say why in
// Check.Reason: a check is not applicable when the target does not declare or
// show what it judges (no dependency, no RateLimit fields), inconclusive when
// the behaviour could not be exercised.
const (
	StatusPass          Status = "pass"
	StatusFail          Status = "fail"
	StatusInconclusive  Status = "inconclusive"
	StatusNotApplicable Status = "not-applicable"
)

// statusSkipped is what reports written before not-applicable existed say
// instead; Read takes it as StatusNotApplicable.
const statusSkipped Status = "skipped"

// Report is the whole result of one certification run. It is plain data: not
// safe for concurrent mutation, and writers only read it. Call Finalize after
// adding checks and before writing.
type Report struct {
	Schema      string    `json:"schema"`
	Verdict     Verdict   `json:"verdict"`
	Seed        uint64    `json:"seed"`
	Reproduce   string    `json:"reproduce"` // command line that replays the whole run
	Target      Target    `json:"target"`
	Tool        Tool      `json:"tool"`
	Started     time.Time `json:"started"`
	Duration    Duration  `json:"duration"`
	Interrupted string    `json:"interrupted,omitempty"` // why the run stopped early; non-empty means verdict interrupted
	// Aborted says why no check could run (the target never became healthy
	// or could not be reached); non-empty means verdict inconclusive.
	Aborted      string         `json:"aborted,omitempty"`
	TargetOutput string         `json:"target_output,omitempty"` // the target's last output lines or logs, kept when it aborted the run
	Gate         *Gate          `json:"gate,omitempty"`          // the gate the verdict follows; nil = every failure counts
	Baseline     *Baseline      `json:"baseline,omitempty"`      // the comparison with an earlier report, when one was given
	Tolerances   []Tolerance    `json:"tolerances"`
	Suites       []SuiteSummary `json:"suites"`
	Checks       []Check        `json:"checks"`
	Journal      string         `json:"journal,omitempty"` // path of the saved journal (JSON lines), relative to the report
	// Logs are the target's own logs (each container of a compose stack),
	// kept as files in the report directory when a check failed or the run
	// aborted, so a failure is read next to the target's account of it.
	Logs []LogFile `json:"logs,omitempty"`
	// TLS says which hops the run intercepted TLS on, and the fingerprint
	// of the authority it did so with; nil = plain HTTP throughout.
	TLS *TLS `json:"tls,omitempty"`
}

// Target describes what was certified. Kind is "reference", "running" or
// "process"; URLs maps a role ("front", "dependency", ...) to its address.
type Target struct {
	Name    string            `json:"name"`
	Kind    string            `json:"kind"`
	URLs    map[string]string `json:"urls,omitempty"`
	Defects []string          `json:"defects,omitempty"` // reference defects switched on
}

// LogFile is one part of the target's log, saved beside the report.
type LogFile struct {
	Name string `json:"name"` // the part, e.g. gateway-1
	File string `json:"file"` // relative to the report, e.g. logs/gateway-1.log
}

// Tool identifies the resilcheck build that produced the report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Go      string `json:"go"`
}

// Tolerance records one threshold a suite used, so a reader can judge a verdict.
type Tolerance struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Why   string `json:"why,omitempty"`
}

// SuiteSummary counts the checks of one suite by status; Finalize fills it.
type SuiteSummary struct {
	Name          string `json:"name"`
	Pass          int    `json:"pass"`
	Fail          int    `json:"fail"`
	Inconclusive  int    `json:"inconclusive"`
	NotApplicable int    `json:"not_applicable"`
}

// Total is the number of checks the summary counts.
func (s SuiteSummary) Total() int { return s.Pass + s.Fail + s.Inconclusive + s.NotApplicable }

// Check is the result of one assertion. ID is the check's ID such as
// "IK-07", Source its public citation, Level how strongly the source states it.
type Check struct {
	ID       string `json:"id"`
	Suite    string `json:"suite"`
	Title    string `json:"title"`
	Source   string `json:"source,omitempty"`
	Level    Level  `json:"level,omitempty"`
	Status   Status `json:"status"`
	Expected string `json:"expected,omitempty"`
	Observed string `json:"observed,omitempty"`
	Reason   string `json:"reason,omitempty"` // why not applicable or inconclusive
	// Noisy marks an inconclusive verdict the runner's own slowness made
	// (its stalls, a request rate it could not keep), not the target's:
	// on a quieter machine the check may decide.
	Noisy bool `json:"noisy,omitempty"`
	// Tier names the tier of a multi-tier target a failure lies with, as
	// the per-hop exchanges show (Observed says why); empty when the target
	// has one tier or the hops do not tell.
	Tier           string      `json:"tier,omitempty"`
	Evidence       []Exchange  `json:"evidence,omitempty"`
	EvidenceTotal  int         `json:"evidence_total,omitempty"` // exchanges observed when Evidence is a sample of them (see SampleEvidence)
	Load           *Load       `json:"load,omitempty"`           // rate and latency over time, for a load-driven check
	Reproduce      string      `json:"reproduce,omitempty"`      // command line replaying this case
	Counterexample []string    `json:"counterexample,omitempty"` // shrunk steps of a failed property, one per entry
	Duration       Duration    `json:"duration"`
	Gate           GateOutcome `json:"gate,omitempty"`   // how the gate treated a failed or inconclusive check
	Change         Change      `json:"change,omitempty"` // how a failure compares with the baseline
}

// Exchange is one journal entry kept as evidence. Side is "client",
// "front", "dependency", or "hop:TIER" for the hop into a tier; At is the
// offset from the run start; Status 0 means no response was received.
type Exchange struct {
	ID      uint64            `json:"id"`
	Side    string            `json:"side"`
	Case    string            `json:"case,omitempty"`
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers,omitempty"`
	Status  int               `json:"status"`
	Fault   string            `json:"fault,omitempty"`
	At      Duration          `json:"at"`
	Took    Duration          `json:"took"`
	Note    string            `json:"note,omitempty"`
	// Entry is the journal entry's own ID, which names the copy of the
	// target it came from when several ran: the runner renumbers evidence
	// by it, and reports leave it out.
	Entry string `json:"-"`
}
