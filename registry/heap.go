package registry

// heapItem is one pushed deadline; it is stale when its entry has been
// removed or renewed to another deadline since.
type heapItem struct {
	deadline int64
	e        *entry
}

// deadlineHeap is a binary min-heap on deadline (typed, so pushes do not
// box items into interfaces as container/heap would).
type deadlineHeap []heapItem

func (h *deadlineHeap) push(it heapItem) {
	*h = append(*h, it)
	h.up(len(*h) - 1)
}

func (h *deadlineHeap) pop() heapItem {
	old := *h
	n := len(old) - 1
	top := old[0]
	old[0] = old[n]
	old[n] = heapItem{}
	*h = old[:n]
	if n > 0 {
		h.down(0)
	}
	return top
}

func (h deadlineHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if h[p].deadline <= h[i].deadline {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (h deadlineHeap) down(i int) {
	n := len(h)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && h[c+1].deadline < h[c].deadline {
			c++
		}
		if h[i].deadline <= h[c].deadline {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
