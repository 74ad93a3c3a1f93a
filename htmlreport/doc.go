// Package htmlreport writes the pages a person opens in a browser: one run
// (or the statistics of repeated runs) as a self-contained HTML page, and
// pages of sets of runs (an index of a results directory, a sweep, a
// comparison). Every page is written from typed values (report.Result and
// the Set and Grid values the command builds), never from the Markdown; the
// figures are embedded as data: URIs, the style sheet is inline, and no
// script runs, so a page opens from disk, from a CI artifact or from a mail
// with nothing outside it but the links to its sibling files.
//
// Every verdict is written as a word with a symbol (✓ reproduced, ≠ differs,
// ✗ OUTSIDE, ? invalid, ~ inconclusive); colour only repeats it, so a page
// printed in black and white reads the same.
//
// A new kind of set page (the registry matrix, say) is a Set whose sections
// hold Grids: cells carry their text, an optional link and an optional
// verdict; WriteSet draws any of them with the shared layout.
package htmlreport
