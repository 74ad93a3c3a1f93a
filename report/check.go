package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Num formats a number compactly: integers without decimals, others with at
// most 3 decimals and no trailing zeros.
func Num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	s := strconv.FormatFloat(v, 'f', 3, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// Between checks lo ≤ measured ≤ hi. unit is appended to numbers ("ms", "s", "").
func Between(name, article string, measured, lo, hi float64, unit string) Check {
	return Check{
		Name:     name,
		Article:  article,
		Measured: Num(measured) + unit,
		Band:     fmt.Sprintf("%s–%s%s", Num(lo), Num(hi), unit),
		Pass:     measured >= lo && measured <= hi,
	}
}

// AtMost checks measured ≤ hi.
func AtMost(name, article string, measured, hi float64, unit string) Check {
	return Check{
		Name:     name,
		Article:  article,
		Measured: Num(measured) + unit,
		Band:     "≤ " + Num(hi) + unit,
		Pass:     measured <= hi,
	}
}

// AtLeast checks measured ≥ lo.
func AtLeast(name, article string, measured, lo float64, unit string) Check {
	return Check{
		Name:     name,
		Article:  article,
		Measured: Num(measured) + unit,
		Band:     "≥ " + Num(lo) + unit,
		Pass:     measured >= lo,
	}
}

// Equal checks measured == want.
func Equal(name, article string, measured, want float64, unit string) Check {
	return Check{
		Name:     name,
		Article:  article,
		Measured: Num(measured) + unit,
		Band:     "= " + Num(want) + unit,
		Pass:     measured == want,
	}
}

// Bool checks a yes/no observation; yes and no are the words to print
// ("fails"/"succeeds", "present"/"missing").
func Bool(name, article string, measured, want bool, yes, no string) Check {
	word := func(b bool) string {
		if b {
			return yes
		}
		return no
	}
	return Check{Name: name, Article: article, Measured: word(measured), Band: word(want), Pass: measured == want}
}

// B2F converts a bool to 1 or 0, for metrics.
func B2F(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
