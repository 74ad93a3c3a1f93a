package experiment

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
)

var (
	experimentType = reflect.TypeFor[Experiment]()
	durationType   = reflect.TypeFor[Duration]()
)

// checkFields walks a decoded file against t, the type it fills: every key
// must be a field of t (by its JSON name) and every duration must parse;
// the first problem is returned with its path.
func checkFields(v any, t reflect.Type, path string) error {
	switch {
	case t == durationType:
		return checkDuration(v, path)
	case t.Kind() == reflect.Struct:
		return checkStruct(v, t, path)
	case t.Kind() == reflect.Slice:
		list, ok := v.([]any)
		if !ok {
			return nil // the decoder names the type error
		}
		for i, e := range list {
			if err := checkFields(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkStruct checks a mapping against the fields of struct type t.
func checkStruct(v any, t reflect.Type, path string) error {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	fields := jsonFields(t)
	for _, k := range sortedKeys(m) {
		ft, ok := fields[k]
		if !ok {
			return fmt.Errorf("%s: unknown field %q (known: %s)", orTop(join(path, k)), k, strings.Join(sortedKeys(fields), ", "))
		}
		if err := checkFields(m[k], ft, join(path, k)); err != nil {
			return err
		}
	}
	return nil
}

// checkDuration checks a duration value.
func checkDuration(v any, path string) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("%s: want a duration such as \"18s\" or \"500ms\", got %v", path, v)
	}
	if _, err := time.ParseDuration(s); err != nil {
		return fmt.Errorf("%s: want a duration such as \"18s\" or \"500ms\", got %q", path, s)
	}
	return nil
}

// jsonFields maps the JSON names of t's fields to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		out[name] = f.Type
	}
	return out
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func orTop(p string) string {
	if p == "" {
		return "(top)"
	}
	return p
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
