package report

import (
	"fmt"
	"math"
)

// Agreement is how near the article's figure a measurement must lie to
// agree with it: an absolute tolerance in the check's unit, or a share of
// the figure, whichever is larger, and where that tolerance comes from (the
// article's own precision, the measurement's resolution, a counting or
// timing noise the rules give).
type Agreement struct {
	Abs float64
	Rel float64
	// Factor, when above 1, makes the interval [figure / Factor, figure ×
	// Factor] instead (timings of other machines, ratios of timings).
	Factor float64
	Basis  string
}

// exactBasis is the agreement of a check that states none: the figure itself.
const exactBasis = "no tolerance stated: the article's figure itself"

// yesNoBasis is the agreement of a yes/no check.
const yesNoBasis = "a yes/no observation agrees only when it is the same answer"

// Within sets the agreement: ours agrees with the article's figure when it
// lies within abs (in the check's unit) of the figure's range; basis says
// where abs comes from.
func (e Expect) Within(abs float64, basis string) Expect {
	e.Agree = Agreement{Abs: abs, Basis: basis}
	return e
}

// WithinShare sets a relative agreement: ours agrees when it lies within
// share × the figure (e.g. 0.1 for ±10 %) of the figure's range.
func (e Expect) WithinShare(share float64, basis string) Expect {
	e.Agree = Agreement{Rel: share, Basis: basis}
	return e
}

// WithinFactor sets a multiplicative agreement for a positive figure: ours
// agrees when it lies within [figure / f, figure × f] (f > 1).
func (e Expect) WithinFactor(f float64, basis string) Expect {
	e.Agree = Agreement{Factor: f, Basis: basis}
	return e
}

// Apply applies a shared agreement rule (a function that sets Within and
// Spread), so that checks of one claim in several scenarios agree alike.
func (e Expect) Apply(rule func(Expect) Expect) Expect { return rule(e) }

// Spread sets the cause reported when the article's figure lies inside the
// band but ours does not agree with it: the rules allow both (a timer's
// phase, a random choice); the article's figure is one outcome of several.
func (e Expect) Spread(cause string) Expect { e.spread = cause; return e }

// agreement returns the interval of measurements that agree with the
// article's figure and its basis; ok is false for a claim without figure.
func (e Expect) agreement() (lo, hi float64, basis string, ok bool) {
	if !e.Claim.HasValue {
		return 0, 0, "", false
	}
	a := e.Agree
	switch {
	case e.yesNo():
		a = Agreement{Basis: yesNoBasis}
	case a.Basis == "":
		a = Agreement{Basis: exactBasis}
	}
	if a.Factor > 1 {
		return e.Claim.Lo / a.Factor, e.Claim.Hi * a.Factor, a.Basis, true
	}
	tol := math.Max(a.Abs, a.Rel*math.Max(math.Abs(e.Claim.Lo), math.Abs(e.Claim.Hi)))
	return e.Claim.Lo - tol, e.Claim.Hi + tol, a.Basis, true
}

// verdictOf is the rule every check follows: outside the band is outside;
// inside it, a check without a figure is reproduced, and one with a figure
// is reproduced only when ours agrees with the figure, else it differs
// with the cause that fits (the figure outside the band: the rules predict
// something else; inside it: the rules allow both).
func verdictOf(c Check, measured float64) (Verdict, string) {
	if !c.Pass {
		return Outside, ""
	}
	return inBandVerdict(c, measured)
}

// inBandVerdict is the verdict of a measurement inside the band (over
// repeated runs, of their median): reproduced or differs, with the cause.
func inBandVerdict(c Check, measured float64) (Verdict, string) {
	switch {
	case c.AgreeLo == nil || agrees(c, measured):
		return Reproduced, ""
	case c.articleOffBand():
		if c.whyOffBand == "" {
			return Differs, "no cause given"
		}
		return Differs, c.whyOffBand
	}
	return Differs, c.spreadCause(measured)
}

// agrees reports whether v lies in the check's agreement interval.
func agrees(c Check, v float64) bool { return v >= *c.AgreeLo && v <= *c.AgreeHi }

// articleOffBand reports whether some of the article's figures lie outside
// the band (the rules predict another value than the article's).
func (c Check) articleOffBand() bool {
	if c.ArticleLo == nil {
		return false
	}
	lo, hi := float64(c.BandLo), float64(c.BandHi)
	return *c.ArticleLo < lo || *c.ArticleHi > hi
}

// spreadCause is the cause of a check whose band holds both the article's
// figure and ours, which do not agree.
func (c Check) spreadCause(measured float64) string {
	off := fmt.Sprintf("ours (%s) is off the article's figure beyond the agreement interval %s (%s)",
		c.fmtNum(measured), c.agreeText(), c.AgreeBasis)
	if c.whySpread != "" {
		return c.whySpread + "; " + off
	}
	return "the band's rules allow both the article's figure and ours; " + off
}

// agreeText formats the agreement interval ("14–31 s", "= 0").
func (c Check) agreeText() string {
	if c.AgreeLo == nil {
		return "—"
	}
	lo, hi := *c.AgreeLo, *c.AgreeHi
	if lo == hi {
		return "= " + c.fmtNum(lo)
	}
	return Num(lo) + "–" + c.fmtNum(hi)
}

// fmtNum formats v with the check's unit.
func (c Check) fmtNum(v float64) string {
	if c.Unit == "" {
		return Num(v)
	}
	return Num(v) + " " + c.Unit
}

// countBasis is the agreement of a count the article gives.
const countBasis = "a count of calls or events: ours agrees only when it is the article's count"

// SameCount sets the agreement of a count: ours agrees only when it is
// the article's number (a whole count has no rounding to allow for).
func (e Expect) SameCount() Expect { return e.Within(0, countBasis) }

// shareBasis is the agreement of a share the article gives in words
// ("every call failed", "none failed").
const shareBasis = "the article's words give the whole share (every call, or none): ours agrees only at that share"

// SameShare sets the agreement of a share the article gives as all or
// nothing: ours agrees only when it is that share.
func (e Expect) SameShare() Expect { return e.Within(0, shareBasis) }
