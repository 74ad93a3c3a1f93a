package netns

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"
)

// Filter is a run's nf_tables table (family ip) in its private namespace.
// Each Apply adds one base chain on the input hook holding one fault's
// rules (dropping at input, after the sender's stack has sent the packet,
// is what a lossy link does; dropping at output would fail the sender's
// send call instead). Close deletes the table with all its chains. Safe for
// concurrent use.
type Filter struct {
	mu     sync.Mutex
	conn   *nftables.Conn
	table  *nftables.Table
	chains int
	closed bool
}

// tableSeq numbers the tables a process opens.
var tableSeq atomic.Int64

// ErrClosed is returned by Apply after Close.
var ErrClosed = errors.New("packet filter closed")

// OpenFilter creates the run's table. It refuses to run outside a private
// namespace made by Reexec: the harness never touches the host's firewall.
func OpenFilter() (*Filter, error) {
	if err := checkInside(); err != nil {
		return nil, fmt.Errorf("opening the packet filter (only inside a private namespace, never on the host): %w", err)
	}
	conn, err := nftables.New(nftables.AsLasting())
	if err != nil {
		return nil, fmt.Errorf("opening nf_tables: %w", err)
	}
	name := fmt.Sprintf("sdchaos_%d_%d", os.Getpid(), tableSeq.Add(1))
	t := conn.AddTable(&nftables.Table{Name: name, Family: nftables.TableFamilyIPv4})
	if err := conn.Flush(); err != nil {
		_ = conn.CloseLasting()
		return nil, fmt.Errorf("creating nf_tables table %s: %w", name, err)
	}
	return &Filter{conn: conn, table: t}, nil
}

// Table returns the name of the run's table.
func (f *Filter) Table() string { return f.table.Name }

// Applied is one fault's rules, installed as one chain.
type Applied struct {
	f       *Filter
	chain   *nftables.Chain
	removed bool
}

// Apply installs rules, atomically, as one new base chain (hook input,
// filter priority, policy accept) labelled label. Rules of one chain should
// select disjoint packets: a packet that one rule spares goes on to the
// next, and would be drawn again.
func (f *Filter) Apply(label string, rules []Rule) (*Applied, error) {
	exprs := make([][]expr.Any, len(rules))
	for i, r := range rules {
		es, err := r.Exprs()
		if err != nil {
			return nil, fmt.Errorf("building rule %d of %s: %w", i+1, label, err)
		}
		exprs[i] = es
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, ErrClosed
	}
	f.chains++
	accept := nftables.ChainPolicyAccept
	c := f.conn.AddChain(&nftables.Chain{Name: fmt.Sprintf("fault%d", f.chains), Table: f.table,
		Type: nftables.ChainTypeFilter, Hooknum: nftables.ChainHookInput,
		Priority: nftables.ChainPriorityFilter, Policy: &accept})
	for _, es := range exprs {
		f.conn.AddRule(&nftables.Rule{Table: f.table, Chain: c, Exprs: es, UserData: []byte(label)})
	}
	if err := f.conn.Flush(); err != nil {
		return nil, fmt.Errorf("installing %s in nf_tables: %w", label, err)
	}
	return &Applied{f: f, chain: c}, nil
}

// Remove deletes the chain and its rules, atomically. Removing twice, or
// after the filter's Close, does nothing.
func (a *Applied) Remove() error {
	f := a.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if a.removed || f.closed {
		a.removed = true
		return nil
	}
	f.conn.FlushChain(a.chain)
	f.conn.DelChain(a.chain)
	if err := f.conn.Flush(); err != nil {
		return fmt.Errorf("removing chain %s: %w", a.chain.Name, err)
	}
	a.removed = true
	return nil
}

// Counts is what one applied fault did: the packets its rules selected,
// and those it dropped or reset.
type Counts struct {
	Selected, Acted uint64
}

// Counts reads the chain's counters (summed over its rules).
func (a *Applied) Counts() (Counts, error) {
	f := a.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if a.removed || f.closed {
		return Counts{}, fmt.Errorf("reading chain %s: already removed", a.chain.Name)
	}
	rules, err := f.conn.GetRules(f.table, a.chain)
	if err != nil {
		return Counts{}, fmt.Errorf("reading chain %s: %w", a.chain.Name, err)
	}
	var c Counts
	for _, r := range rules {
		sel, acted := ruleCounts(r.Exprs)
		c.Selected += sel
		c.Acted += acted
	}
	return c, nil
}

// ruleCounts returns a rule's first counter (selected) and last (acted on).
func ruleCounts(es []expr.Any) (selected, acted uint64) {
	var counters []*expr.Counter
	for _, e := range es {
		if c, ok := e.(*expr.Counter); ok {
			counters = append(counters, c)
		}
	}
	if len(counters) == 0 {
		return 0, 0
	}
	return counters[0].Packets, counters[len(counters)-1].Packets
}

// Close deletes the table with every chain and rule still in it, and
// closes the netlink connection. It is idempotent.
func (f *Filter) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil
	}
	f.closed = true
	f.conn.DelTable(f.table)
	err := f.conn.Flush()
	if cerr := f.conn.CloseLasting(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("deleting nf_tables table %s: %w", f.table.Name, err)
	}
	return nil
}

// Tables returns the names of every nf_tables table in this process's
// network namespace (any family): after a run's Close, none of its own.
func Tables() ([]string, error) {
	if err := checkInside(); err != nil {
		return nil, fmt.Errorf("listing nf_tables tables: %w", err)
	}
	conn, err := nftables.New()
	if err != nil {
		return nil, fmt.Errorf("opening nf_tables: %w", err)
	}
	ts, err := conn.ListTables()
	if err != nil {
		return nil, fmt.Errorf("listing nf_tables tables: %w", err)
	}
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name
	}
	return names, nil
}
