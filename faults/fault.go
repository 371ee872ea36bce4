package faults

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
)

// A Fault decides what happens to one exchange that matched its rule. Inject
// must answer the client through ex (ex.Pass, ex.Reply, ex.Respond, ex.Lose)
// or return an error; every blocking step must go through ex.Sleep or honour
// ex.Context so a departed client or a proxy shutdown ends it. A Fault value
// is shared by all exchanges of its rule and must be safe for concurrent use;
// per-exchange randomness comes from ex.Rand.
type Fault interface {
	Inject(ex *Exchange) error
}

// Validator is implemented by faults whose attributes can be invalid. The
// rule set calls Validate once, when a rule is added; an error rejects the rule.
type Validator interface {
	Validate() error
}

var registry = struct {
	sync.RWMutex
	byName map[string]func() Fault
	byType map[reflect.Type]string
}{byName: map[string]func() Fault{}, byType: map[reflect.Type]string{}}

// Register makes a fault type available by name to rules files and the admin
// API. newFault must return a pointer to a fresh zero-valued struct whose
// attribute fields carry `attr:"name"` tags. Register panics on an empty
// name, a nil constructor or a duplicate name; call it from init.
func Register(name string, newFault func() Fault) {
	if name == "" || newFault == nil {
		panic("faults: Register needs a name and a constructor")
	}
	f := newFault()
	t := reflect.TypeOf(f)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("faults: Register(%q): constructor must return a pointer to a struct", name))
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.byName[name]; dup {
		panic(fmt.Sprintf("faults: Register(%q): duplicate fault name", name))
	}
	registry.byName[name] = newFault
	registry.byType[t] = name
	registry.byType[t.Elem()] = name
}

// Types returns the registered fault names, sorted.
func Types() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.byName))
	for n := range registry.byName {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// TypeOf returns the registered name of f's type, or "" if it is not registered.
// Faults may be given by value or by pointer.
func TypeOf(f Fault) string {
	registry.RLock()
	defer registry.RUnlock()
	return registry.byType[reflect.TypeOf(f)]
}

// NewFault builds the fault registered as name from attrs, decoded strictly:
// an unknown attribute or a value of the wrong type is an *AttrError, an
// unregistered name is ErrUnknownFault. The result is validated.
func NewFault(name string, attrs map[string]any) (Fault, error) {
	registry.RLock()
	newFault, ok := registry.byName[name]
	registry.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w %q (known: %v)", ErrUnknownFault, name, Types())
	}
	f := newFault()
	if err := decodeAttrs(f, attrs); err != nil {
		return nil, err
	}
	if err := validateFault(f); err != nil {
		return nil, err
	}
	return f, nil
}

// FaultAttrs returns f's attributes in the form NewFault accepts, omitting
// zero values; durations become strings such as "250ms".
func FaultAttrs(f Fault) map[string]any { return encodeAttrs(f) }

func validateFault(f Fault) error {
	if v, ok := f.(Validator); ok {
		if err := v.Validate(); err != nil {
			return fmt.Errorf("faults: %s: %w", TypeOf(f), err)
		}
	}
	return nil
}
