package report

import (
	"fmt"
	"math"
)

// NotMeasured is how a table cell prints a figure that was not measured.
const NotMeasured = "—"

// PctText prints 100·a/b as "12.5 %", or "— (none)" when b is 0: a share
// of nothing is said in words, never NaN.
func PctText(a, b int) string {
	if p := Pct(a, b); !math.IsNaN(p) {
		return fmt.Sprintf("%.1f %%", p)
	}
	return NotMeasured + " (none)"
}
