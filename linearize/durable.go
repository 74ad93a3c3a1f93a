package linearize

import (
	"fmt"
	"sort"
)

// Loss is a key whose value after healing drops acknowledged puts.
type Loss struct {
	Key string
	// Final is the read after healing; Lost counts the key's acknowledged
	// puts its value cannot follow, Latest is the latest-invoked of them.
	Final  KV
	Lost   int
	Latest KV
}

// Explain says what was lost, in one sentence.
func (l Loss) Explain() string {
	return fmt.Sprintf("%s read %s after healing, but %d acknowledged put(s) must come after that value: the latest, %s's put of %s, acknowledged at %s",
		l.Key, show(l.Final.Value), l.Lost, l.Latest.Member, l.Latest.Value, at(l.Latest.Return))
}

// Durability is what the reads after healing (member Final) found.
type Durability struct {
	// Keys counts the keys with an acknowledged put; Acked their acknowledged puts.
	Keys, Acked int
	// Unread lists the keys with an acknowledged put but no answered read after healing.
	Unread []string
	Losses []Loss
}

// LostPuts returns how many acknowledged puts were lost, over every key.
func (d Durability) LostPuts() int {
	n := 0
	for _, l := range d.Losses {
		n += l.Lost
	}
	return n
}

// CheckDurable checks that no acknowledged put was lost: for each key
// with an acknowledged put, the last answered read after healing must
// return the value of a put that no acknowledged put follows in real time
// (it returned before that put was invoked). An unacknowledged put never
// returned, so it may have been applied last: its value is accepted.
func CheckDurable(kvs []KV) Durability {
	puts, finals := map[string][]KV{}, map[string]KV{}
	for _, kv := range kvs {
		switch {
		case kv.Kind == Put:
			puts[kv.Key] = append(puts[kv.Key], kv)
		case kv.Member == Final && kv.Kind == Get && kv.Acked():
			if f, ok := finals[kv.Key]; !ok || kv.Call >= f.Call {
				finals[kv.Key] = kv
			}
		}
	}
	var d Durability
	for _, key := range sortedKeys(puts) {
		acked := ackedOf(puts[key])
		if len(acked) == 0 {
			continue
		}
		d.Keys++
		d.Acked += len(acked)
		final, ok := finals[key]
		if !ok {
			d.Unread = append(d.Unread, key)
			continue
		}
		if lost := lostBy(final, puts[key], acked); len(lost) > 0 {
			d.Losses = append(d.Losses, Loss{Key: key, Final: final, Lost: len(lost), Latest: lost[len(lost)-1]})
		}
	}
	return d
}

// lostBy returns the acknowledged puts (by invocation, and acknowledged
// before the final read began) that the final value cannot follow: all of
// them when no put wrote it, else those invoked after its put returned.
func lostBy(final KV, puts, all []KV) []KV {
	var acked []KV
	for _, q := range all {
		if q.Return < final.Call {
			acked = append(acked, q)
		}
	}
	var writer *KV
	for i := range puts {
		if final.Value != "" && puts[i].Value == final.Value {
			writer = &puts[i]
		}
	}
	if writer == nil {
		return acked // nil when nothing was acknowledged before the read
	}
	if !writer.Acked() {
		return nil // it may have taken effect at any time after its call
	}
	var lost []KV
	for _, q := range acked {
		if writer.Return < q.Call {
			lost = append(lost, q)
		}
	}
	return lost
}

func ackedOf(puts []KV) []KV {
	var out []KV
	for _, p := range puts {
		if p.Acked() {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Call < out[j].Call })
	return out
}

func sortedKeys(m map[string][]KV) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
