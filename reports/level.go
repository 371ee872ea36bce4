package reports

import "slices"

// Level is how strongly a check's source states the rule it tests: a BCP 14
// keyword (RFC 2119, RFC 8174) of the cited RFC or draft, a recommendation in
// prose (an SRE book chapter, "ought to"), or a de-facto convention
// (a vendor's documented behaviour, a library default).
type Level string

// Levels a check may carry. A check derived from a rule, such as a property
// over random faults, carries the level of the rule it tests.
const (
	LevelMust        Level = "MUST"
	LevelMustNot     Level = "MUST NOT"
	LevelShould      Level = "SHOULD"
	LevelShouldNot   Level = "SHOULD NOT"
	LevelRecommended Level = "RECOMMENDED"
	LevelConvention  Level = "CONVENTION"
)

// Levels returns every level, strongest first.
func Levels() []Level {
	return []Level{LevelMust, LevelMustNot, LevelShould, LevelShouldNot, LevelRecommended, LevelConvention}
}

// Valid reports whether l is one of Levels.
func (l Level) Valid() bool { return slices.Contains(Levels(), l) }
