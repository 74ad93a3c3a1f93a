package report

import (
	"encoding/xml"
	"fmt"
	"io"
)

// JUnit XML (the Jenkins/GitLab dialect): one test suite per result, one
// test case per check. Outside is a failure, invalid and inconclusive are
// skipped (the run could not judge), reproduced and differs pass.

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
}

// RenderJUnit writes results as JUnit XML.
func RenderJUnit(w io.Writer, results []*Result) error {
	var out junitSuites
	for _, r := range results {
		s := junitSuite{Name: r.Scenario, Time: fmt.Sprintf("%.1f", r.WallSeconds)}
		for _, g := range r.Gates {
			if !g.OK {
				s.Cases = append(s.Cases, junitCase{Name: "gate: " + g.Name, ClassName: r.Scenario,
					Skipped: &junitMessage{Message: "invalid run: " + g.Measured}})
			}
		}
		for _, c := range r.Checks {
			s.Cases = append(s.Cases, junitCheck(r.Scenario, c))
		}
		for _, c := range s.Cases {
			s.Tests++
			if c.Failure != nil {
				s.Failures++
			}
			if c.Skipped != nil {
				s.Skipped++
			}
		}
		out.Suites = append(out.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("writing JUnit XML: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func junitCheck(scenario string, c Check) junitCase {
	jc := junitCase{Name: c.Name, ClassName: scenario,
		SystemOut: fmt.Sprintf("verdict %s; measured %s; band %s; article %s", c.Verdict, c.MeasuredText, c.Band, c.Article)}
	if c.Cause != "" {
		jc.SystemOut += "; cause: " + c.Cause
	}
	msg := &junitMessage{Message: fmt.Sprintf("%s: measured %s, band %s", c.Verdict, c.MeasuredText, c.Band)}
	switch c.Verdict {
	case Outside:
		jc.Failure = msg
	case Invalid, Inconclusive:
		jc.Skipped = msg
	}
	return jc
}
