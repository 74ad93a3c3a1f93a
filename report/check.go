package report

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Verdict is the outcome of one check, or of a whole run.
type Verdict string

const (
	// Reproduced: our measurement is inside the band the parameters and the
	// real system's rules predict and, where the article gives a figure,
	// agrees with that figure within the check's stated tolerance.
	Reproduced Verdict = "reproduced"
	// Differs: our measurement is inside the band but does not agree with
	// the article's figure; the check names the cause (a source rule, a
	// client behaviour, or a timer's phase that allows both figures).
	Differs Verdict = "differs"
	// Outside: our measurement is outside the band — a regression.
	Outside Verdict = "outside"
	// Invalid: the run could not judge the check (nothing to measure, a
	// fault that did not take effect); never a pass or a fail.
	Invalid Verdict = "invalid"
	// Inconclusive: over repeated runs, the interval of the measurement
	// overlaps the band's edge: neither inside nor outside (more runs, or
	// a wider band only if the system's rules say so).
	Inconclusive Verdict = "inconclusive"
)

// Claim is what the article says for a check: its words and, where it
// gives one, its figure as a number or a range in the check's unit.
type Claim struct {
	Text     string
	Lo, Hi   float64
	HasValue bool
}

// Says is a qualitative claim (no figure): it never contradicts a band.
func Says(text string) Claim { return Claim{Text: text} }

// SaysValue is a claim with one figure.
func SaysValue(text string, v float64) Claim {
	return Claim{Text: text, Lo: v, Hi: v, HasValue: true}
}

// SaysRange is a claim with a range of figures ("about 15–30 s").
func SaysRange(text string, lo, hi float64) Claim {
	return Claim{Text: text, Lo: lo, Hi: hi, HasValue: true}
}

// OnlyIf keeps the claim's figure when applies (the run has the article's
// setup for this figure); otherwise only its words are kept, marked as the
// article's setup, so a figure measured under other parameters is never
// judged against it.
func (c Claim) OnlyIf(applies bool) Claim {
	if applies || !c.HasValue {
		return c
	}
	return Says(c.Text + " (article's setup)")
}

// SaysYes and SaysNo are claims for yes/no checks (1 and 0).
func SaysYes(text string) Claim { return SaysValue(text, 1) }

// SaysNo is the claim "no" (0) for a yes/no check.
func SaysNo(text string) Claim { return SaysValue(text, 0) }

// Expect is a check before its measurement: the name, the band with its
// unit and basis, the article's claim, and the cause to report when the
// article's figure lies outside the band. Build one with Band, AtMost,
// AtLeast, Exactly, Yes or No, refine it with Says, From and Because, and
// turn it into a Check with Judge.
type Expect struct {
	Name   string
	Unit   string
	Lo, Hi float64
	// Basis says where the band comes from (parameters, source rules).
	Basis string
	Claim Claim
	// Cause explains a claim outside the band; required for Differs.
	Cause string
	// Subject is who the check is about (a caller, the registry), where a
	// report groups its checks by it (the registry matrix).
	Subject string
	// Agree is how near the article's figure ours must be to agree with it.
	Agree Agreement
	// spread explains a disagreement the band allows (see Spread).
	spread string
	// words are the texts of 1 and 0 for a yes/no check.
	words *[2]string
	// digits, when ≥ 0, formats numbers with that many decimals.
	digits int
}

// Band expects lo ≤ measured ≤ hi (unit appended to numbers: "ms", " s", "").
func Band(name string, lo, hi float64, unit string) Expect {
	return Expect{Name: name, Unit: unit, Lo: lo, Hi: hi, digits: -1}
}

// AtMost expects measured ≤ hi.
func AtMost(name string, hi float64, unit string) Expect {
	return Band(name, math.Inf(-1), hi, unit)
}

// AtLeast expects measured ≥ lo.
func AtLeast(name string, lo float64, unit string) Expect {
	return Band(name, lo, math.Inf(1), unit)
}

// Exactly expects measured == v.
func Exactly(name string, v float64, unit string) Expect { return Band(name, v, v, unit) }

// Yes expects a yes/no observation to be yes (1); yes and no are the words
// printed for 1 and 0 ("succeeds", "fails").
func Yes(name, yes, no string) Expect {
	e := Band(name, 1, 1, "")
	e.words = &[2]string{yes, no}
	return e
}

// yesNo reports whether the check is a yes/no observation.
func (e Expect) yesNo() bool { return e.words != nil }

// No expects a yes/no observation to be no (0).
func No(name, yes, no string) Expect {
	e := Yes(name, yes, no)
	e.Lo, e.Hi = 0, 0
	return e
}

// Says sets the article's claim.
func (e Expect) Says(c Claim) Expect { e.Claim = c; return e }

// From sets the basis of the band.
func (e Expect) From(basis string) Expect { e.Basis = basis; return e }

// Because sets the cause reported when the article's figure is outside the band.
func (e Expect) Because(cause string) Expect { e.Cause = cause; return e }

// About sets who the check is about (see Expect.Subject).
func (e Expect) About(subject string) Expect { e.Subject = subject; return e }

// Digits formats the numbers of the check with d decimals.
func (e Expect) Digits(d int) Expect { e.digits = d; return e }

// InBand reports whether v lies in the band (NaN never does).
func (e Expect) InBand(v float64) bool { return v >= e.Lo && v <= e.Hi }

// Judge measures: the check's verdict follows from the band, the claim
// and the agreement (see verdictOf).
func (e Expect) Judge(measured float64) Check {
	return e.JudgeText(measured, e.format(measured))
}

// JudgeBool measures a yes/no observation.
func (e Expect) JudgeBool(b bool) Check { return e.Judge(B2F(b)) }

// JudgeText measures, with text shown instead of the number (a detail
// such as "s3: 17/23"); the number is still what is judged.
func (e Expect) JudgeText(measured float64, text string) Check {
	c := e.base()
	c.Measured, c.MeasuredText = Number(measured), text
	c.Pass = e.InBand(measured)
	c.Verdict, c.Cause = verdictOf(c, measured)
	return c
}

// Invalid returns the check as invalid: the run could not measure it (why
// says what was missing).
func (e Expect) Invalid(why string) Check {
	c := e.base()
	c.Measured, c.MeasuredText, c.Verdict, c.Cause = Number(math.NaN()), "—", Invalid, why
	return c
}

func (e Expect) base() Check {
	c := Check{Name: e.Name, Article: e.Claim.Text, Band: e.bandText(), BandLo: Number(e.Lo), BandHi: Number(e.Hi),
		Unit: strings.TrimSpace(e.Unit), Basis: e.Basis, YesNo: e.yesNo(), Subject: e.Subject}
	if e.Claim.HasValue {
		lo, hi := e.Claim.Lo, e.Claim.Hi
		c.ArticleLo, c.ArticleHi = &lo, &hi
	}
	if lo, hi, basis, ok := e.agreement(); ok {
		c.AgreeLo, c.AgreeHi, c.AgreeBasis = &lo, &hi, basis
	}
	c.whyOffBand, c.whySpread = e.Cause, e.spread
	if c.Article == "" {
		c.Article = "—"
	}
	return c
}

func (e Expect) format(v float64) string {
	if e.words != nil && (v == 0 || v == 1) {
		return e.words[1-int(v)]
	}
	if math.IsNaN(v) {
		return "—"
	}
	if e.digits >= 0 {
		return strconv.FormatFloat(v, 'f', e.digits, 64) + e.Unit
	}
	return Num(v) + e.Unit
}

func (e Expect) bandText() string {
	switch {
	case e.words != nil && e.Lo == e.Hi:
		return e.format(e.Lo)
	case e.Lo == e.Hi:
		return "= " + e.format(e.Lo)
	case math.IsInf(e.Lo, -1) && math.IsInf(e.Hi, 1):
		return "any"
	case math.IsInf(e.Lo, -1):
		return "≤ " + e.format(e.Hi)
	case math.IsInf(e.Hi, 1):
		return "≥ " + e.format(e.Lo)
	}
	return fmt.Sprintf("%s–%s", strings.TrimSuffix(e.format(e.Lo), e.Unit), e.format(e.Hi))
}

// Check is one headline comparison, judged: the article's claim (words and
// figure), our measurement (number and text), the band that the parameters
// and the real system's rules predict (numbers and text, with its basis),
// and the verdict with its cause.
type Check struct {
	Name      string   `json:"name"`
	Article   string   `json:"article"`
	ArticleLo *float64 `json:"article_lo,omitempty"`
	ArticleHi *float64 `json:"article_hi,omitempty"`
	// AgreeLo and AgreeHi bound the measurements that agree with the
	// article's figure (absent without a figure); AgreeBasis says where the
	// tolerance comes from.
	AgreeLo      *float64 `json:"agree_lo,omitempty"`
	AgreeHi      *float64 `json:"agree_hi,omitempty"`
	AgreeBasis   string   `json:"agree_basis,omitempty"`
	Measured     Number   `json:"measured"`
	MeasuredText string   `json:"measured_text"`
	Band         string   `json:"band"`
	BandLo       Number   `json:"band_lo"`
	BandHi       Number   `json:"band_hi"`
	Unit         string   `json:"unit,omitempty"`
	Basis        string   `json:"basis,omitempty"`
	// Subject is who the check is about (a caller, the registry), if said.
	Subject string  `json:"subject,omitempty"`
	Verdict Verdict `json:"verdict"`
	Cause   string  `json:"cause,omitempty"`
	// Pass is true when the measurement is inside the band (reproduced or differs).
	Pass bool `json:"pass"`
	// YesNo marks a yes/no observation (measured 1 or 0).
	YesNo bool `json:"yes_no,omitempty"`
	// Stats, over repeated runs, are the check's statistics across the
	// valid runs (absent for one run).
	Stats *Stats `json:"stats,omitempty"`
	// whyOffBand and whySpread are the causes a differs verdict reports
	// (Expect.Cause and Expect.Spread), kept to judge the check over runs.
	whyOffBand, whySpread string
}

// Stats are a check's or a metric's statistics over repeated runs, as
// numbers a CI can read without parsing measured_text: the median and its
// distribution-free 95 % interval (null below MinRunsForInterval runs, where
// order statistics give none), min, max, how many runs measured it and, for
// a check, how many of them were inside the band. For a yes/no check the
// median is the share of runs as expected and the interval its Wilson
// interval.
type Stats struct {
	Runs   int    `json:"runs"`
	Median Number `json:"median"`
	CILo   Number `json:"ci_lo"`
	CIHi   Number `json:"ci_hi"`
	Min    Number `json:"min"`
	Max    Number `json:"max"`
	InBand *int   `json:"in_band,omitempty"`
}

// Number is a float64 that encodes NaN and ±Inf as JSON null (an unbounded
// band edge, a missing measurement).
type Number float64

// MarshalJSON encodes the number, or null when it is not finite.
func (n Number) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatFloat(f, 'g', -1, 64)), nil
}

// UnmarshalJSON decodes a number; null becomes NaN.
func (n *Number) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Number(math.NaN())
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("number %s: %w", b, err)
	}
	*n = Number(f)
	return nil
}

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

// B2F converts a bool to 1 or 0, for metrics.
func B2F(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Numbers is a list of float64 that encodes NaN and ±Inf as JSON null and
// decodes null as NaN (samples of measurements, some not measured).
type Numbers []float64

// MarshalJSON encodes the list with non-finite values as null.
func (ns Numbers) MarshalJSON() ([]byte, error) {
	out := make([]Number, len(ns))
	for i, n := range ns {
		out[i] = Number(n)
	}
	return json.Marshal(out)
}

// UnmarshalJSON decodes a list; null becomes NaN.
func (ns *Numbers) UnmarshalJSON(b []byte) error {
	var in []Number
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*ns = make(Numbers, len(in))
	for i, n := range in {
		(*ns)[i] = float64(n)
	}
	return nil
}
