package article40

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// tailProb is the chance, per side, that a band derived from a sampling
// distribution excludes a correct measurement: 10⁻⁴, so a run with a dozen
// such checks is wrongly judged outside less than once in a thousand runs.
const tailProb = 1e-4

// uniformMedianBand returns the tailProb and 1 − tailProb quantiles of the
// sample median of n independent Uniform(0, 1) draws. The k-th smallest of
// n uniforms is Beta(k, n+1−k); for an even n the median lies between the
// two middle order statistics, so the band runs from the lower one's low
// quantile to the upper one's high quantile.
func uniformMedianBand(n int) (lo, hi float64) {
	if n < 1 {
		return 0, 1
	}
	kLo, kHi := (n+1)/2, n/2+1
	lo = distuv.Beta{Alpha: float64(kLo), Beta: float64(n + 1 - kLo)}.Quantile(tailProb)
	hi = distuv.Beta{Alpha: float64(kHi), Beta: float64(n + 1 - kHi)}.Quantile(1 - tailProb)
	return lo, hi
}

// uniformRangeLow returns r with P(range of n Uniform(0, 1) draws < r) =
// tailProb, where P(range < r) = n·r^(n−1) − (n−1)·r^n; 0 for n < 2.
func uniformRangeLow(n int) float64 {
	if n < 2 {
		return 0
	}
	cdf := func(r float64) float64 {
		return float64(n)*math.Pow(r, float64(n-1)) - float64(n-1)*math.Pow(r, float64(n))
	}
	lo, hi := 0.0, 1.0
	for range 60 {
		mid := (lo + hi) / 2
		if cdf(mid) < tailProb {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// logLogFit fits ln y = a + slope·ln x by least squares (gonum's
// LinearRegression) and returns the slope and R². It returns NaNs for
// fewer than two points or a non-positive value.
func logLogFit(xs, ys []float64) (slope, r2 float64) {
	if len(xs) < 2 || len(xs) != len(ys) {
		return math.NaN(), math.NaN()
	}
	lx, ly := make([]float64, len(xs)), make([]float64, len(ys))
	for i := range xs {
		if xs[i] <= 0 || ys[i] <= 0 {
			return math.NaN(), math.NaN()
		}
		lx[i], ly[i] = math.Log(xs[i]), math.Log(ys[i])
	}
	a, b := stat.LinearRegression(lx, ly, nil, false)
	return b, stat.RSquared(lx, ly, nil, a, b)
}

// slopeOf returns the log–log slope a cost model f would show over sizes.
func slopeOf(sizes []float64, f func(n float64) float64) float64 {
	ys := make([]float64, len(sizes))
	for i, n := range sizes {
		ys[i] = f(n)
	}
	s, _ := logLogFit(sizes, ys)
	return s
}

// slopeNoise is how far one size's cost off by a factor of two moves the
// fitted slope at most: ln 2 · max|ln Nᵢ − mean| / Σ(ln Nᵢ − mean)². It is
// the allowance for a noisy timing on a shared machine.
func slopeNoise(sizes []float64) float64 {
	lx := make([]float64, len(sizes))
	var mean float64
	for i, n := range sizes {
		lx[i] = math.Log(n)
		mean += lx[i] / float64(len(sizes))
	}
	var far, sxx float64
	for _, x := range lx {
		far, sxx = math.Max(far, math.Abs(x-mean)), sxx+(x-mean)*(x-mean)
	}
	if sxx == 0 {
		return math.Inf(1)
	}
	return math.Ln2 * far / sxx
}

// articleCrashRuns is how many crash runs each of the article's expiry
// figures summarises (40.1: 20 runs each).
const articleCrashRuns = 20

// agreeQuantile is the chance per side that an order statistic of the
// article's 20 runs falls outside the width used to agree with it.
const agreeQuantile = 0.025

// orderStatWidth returns the width, in units of the interval, of the
// central 95 % of the k-th smallest of n Uniform(0, 1) draws
// (Beta(k, n+1−k)): two runs of n crashes may give figures this far apart.
func orderStatWidth(k, n int) float64 {
	b := distuv.Beta{Alpha: float64(k), Beta: float64(n + 1 - k)}
	return b.Quantile(1-agreeQuantile) - b.Quantile(agreeQuantile)
}

// rangeWidth returns the width, in units of the interval, of the central
// 95 % of the range (max − min) of n Uniform(0, 1) draws (Beta(n−1, 2)).
func rangeWidth(n int) float64 {
	b := distuv.Beta{Alpha: float64(n - 1), Beta: 2}
	return b.Quantile(1-agreeQuantile) - b.Quantile(agreeQuantile)
}
