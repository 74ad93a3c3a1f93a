package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// ErrBadFile marks an experiment file that cannot be used; its message is
// one line naming the file and the field.
var ErrBadFile = errors.New("bad experiment file")

// fileError is a bad file's one-line error; it matches ErrBadFile.
type fileError struct{ msg string }

func (e *fileError) Error() string        { return e.msg }
func (e *fileError) Is(target error) bool { return target == ErrBadFile }

// badFile returns a one-line error about name.
func badFile(name, format string, a ...any) error {
	return &fileError{msg: name + ": " + strings.ReplaceAll(fmt.Sprintf(format, a...), "\n", " ")}
}

// Load reads an experiment from a YAML or JSON file and validates it.
func Load(path string) (Experiment, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Experiment{}, &fileError{msg: err.Error()}
	}
	return Parse(filepath.Base(path), b)
}

// Parse reads an experiment from YAML or JSON (JSON is YAML too) and
// validates it; name labels the errors. Every unknown field, value of the
// wrong type and value out of range is refused with one line naming its
// path ("timeline[1].fault").
func Parse(name string, b []byte) (Experiment, error) {
	js, err := yaml.YAMLToJSON(b)
	if err != nil {
		return Experiment{}, badFile(name, "not YAML or JSON: %v", err)
	}
	var raw any
	if err := json.Unmarshal(js, &raw); err != nil {
		return Experiment{}, badFile(name, "not YAML or JSON: %v", err)
	}
	if _, ok := raw.(map[string]any); !ok {
		return Experiment{}, badFile(name, "want a mapping of fields (name, duration, instances, callers, timeline, …) at the top")
	}
	if err := checkFields(raw, experimentType, ""); err != nil {
		return Experiment{}, badFile(name, "%v", err)
	}
	var x Experiment
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&x); err != nil {
		return Experiment{}, badFile(name, "%v", decodeError(err))
	}
	if err := x.Validate(); err != nil {
		return Experiment{}, badFile(name, "%v", err)
	}
	return x, nil
}

// decodeError says which field a decoding error is about.
func decodeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Errorf("%s: want %s, got a %s", te.Field, kindName(te.Type.Kind().String()), te.Value)
	}
	return err
}

// kindName says a Go kind in a file's words.
func kindName(k string) string {
	switch k {
	case "int", "int64", "float64":
		return "a number"
	case "slice":
		return "a list"
	case "struct":
		return "a mapping"
	}
	return "a " + k
}

// Marshal writes x as YAML (the form the docs use) or, with asJSON, JSON.
func Marshal(x Experiment, asJSON bool) ([]byte, error) {
	js, err := json.MarshalIndent(x, "", "  ")
	if err != nil || asJSON {
		return append(js, '\n'), err
	}
	return yaml.JSONToYAML(js)
}
