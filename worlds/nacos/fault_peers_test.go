package nacos

import "testing"

// TestPeerLinkPorts: every ordered pair of members gets a proxy port of its own, each between
// the members' JRaft ports and their main ports, none of them a member's port, for every
// cluster size.
func TestPeerLinkPorts(t *testing.T) {
	const first = MinMainPort
	for size := 1; size <= 9; size++ {
		plan, err := PlanPorts(first, size)
		if err != nil {
			t.Fatal(err)
		}
		used := map[int]string{}
		for _, mp := range plan {
			for _, p := range mp.All() {
				used[p] = "a member's port"
			}
		}
		for i := range size {
			for j := range size {
				if i == j {
					continue
				}
				p := plan[j].Main + PeerOffset(i, size)
				if what, dup := used[p]; dup {
					t.Errorf("size %d: the proxy %d→%d on %d is also %s", size, i, j, p, what)
				}
				if p <= plan[size-1].Raft || p >= first {
					t.Errorf("size %d: the proxy %d→%d on %d is not between the JRaft ports (≤ %d) and the main ports (≥ %d)", size, i, j, p, plan[size-1].Raft, first)
				}
				used[p] = "another proxy"
			}
		}
	}
}
