// Package pages holds no code: its tests open the command's pages in headless Chromium and
// re-judge every stored run of results/ with the command's recheck. They time nothing and take
// no machine lock, so they live among the locked integration packages, where each runs beside
// one that holds the lock: in cmd/experiments they ran first, beside eurekareal's unlocked JVM
// cluster, and the lock sat idle for their minute and a half.
package pages
