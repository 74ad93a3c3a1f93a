package caller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/clock"
	"sdchaos/etcdcli"
	"sdchaos/history"
)

// KVMember is one etcd member the key-value traffic talks to: its name
// ("n1") and the one endpoint its own client is bound to (the member, or
// the proxy in front of it).
type KVMember struct{ Name, Endpoint string }

// KVMembers pairs member names with endpoints, index by index.
func KVMembers(names, endpoints []string) []KVMember {
	out := make([]KVMember, min(len(names), len(endpoints)))
	for i := range out {
		out[i] = KVMember{Name: names[i], Endpoint: endpoints[i]}
	}
	return out
}

// KVConfig describes the key-value traffic of the linearizability check.
type KVConfig struct {
	Members []KVMember
	// Keys are the keys written and read (outside the instances' prefix).
	Keys []string
	// Rate is the operations per second sent to each member, cycling put,
	// linearizable get, serializable get.
	Rate float64
	// Timeout is each operation's deadline; an operation that hits it is
	// unknown (a put may or may not have happened).
	Timeout time.Duration
}

// DefaultKVKeys are the keys of the key-value traffic.
var DefaultKVKeys = []string{"/kv/a", "/kv/b", "/kv/c"}

// DefaultKVRate is light on purpose: one put, one linearizable and one
// serializable get per second per member, so the traffic the scenarios
// measure is not disturbed.
const DefaultKVRate = 3

// DefaultKVConfig returns the traffic on the default keys at the default rate.
func DefaultKVConfig(members []KVMember, timeout time.Duration) KVConfig {
	return KVConfig{Members: members, Keys: DefaultKVKeys, Rate: DefaultKVRate, Timeout: timeout}
}

// Validate reports impossible values, quoting them.
func (c KVConfig) Validate() error {
	switch {
	case len(c.Members) == 0 || len(c.Keys) == 0:
		return fmt.Errorf("key-value traffic needs members (%d) and keys (%d)", len(c.Members), len(c.Keys))
	case c.Rate <= 0:
		return fmt.Errorf("key-value rate (%g) must be positive", c.Rate)
	case c.Timeout <= 0:
		return fmt.Errorf("key-value timeout (%s) must be positive", c.Timeout)
	}
	return nil
}

// kvKinds are the kinds op k cycles through (k mod 3).
var kvKinds = []history.OpKind{history.OpPut, history.OpGet, history.OpSerGet}

// KV is open-loop key-value traffic against every member, each through
// its own client bound to that member, recorded for the linearizability
// check: op k of member m is kind k mod 3 (put, get, serializable get) on
// key (k/3 + m) mod len(keys), due at T0 + m/(rate × members) + k/rate;
// a put writes "<member>-<k>", unique in the run. Each op is recorded
// with its kind (history.OpPut, OpGet, OpSerGet) and member as Kind and
// Via, the label history.KVCaller(member, kind) as Caller, the key as
// Target, the value written or read as Value (Count 1 when a get found
// the key), and its outcome (unknown when its deadline passed). It is
// Traffic.
type KV struct {
	cfg  KVConfig
	clis []*clientv3.Client
	// all reaches every member: the reads after healing.
	all      *clientv3.Client
	stopOnce sync.Once
	stop     chan struct{}
}

// NewKV creates the traffic's clients (dialing lazily).
func NewKV(cfg KVConfig) (*KV, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	kv := &KV{cfg: cfg, stop: make(chan struct{})}
	var eps []string
	for _, m := range cfg.Members {
		cli, err := etcdcli.New(m.Endpoint)
		if err != nil {
			kv.Close()
			return nil, fmt.Errorf("key-value client for %s: %w", m.Name, err)
		}
		kv.clis = append(kv.clis, cli)
		eps = append(eps, m.Endpoint)
	}
	all, err := etcdcli.New(eps...)
	if err != nil {
		kv.Close()
		return nil, fmt.Errorf("key-value client for every member: %w", err)
	}
	kv.all = all
	return kv, nil
}

// Close releases the clients.
func (kv *KV) Close() {
	for _, c := range append(kv.clis, kv.all) {
		if c != nil {
			c.Close()
		}
	}
}

// Stop ends the sending early (Run then waits for the ops in flight and
// returns nil). Safe to call more than once.
func (kv *KV) Stop() { kv.stopOnce.Do(func() { close(kv.stop) }) }

// Run sends every member's ops on schedule from rec's time zero for d (or
// until Stop), records each, and returns once the last has ended. Ops in
// flight keep ctx: they end at their own deadline.
func (kv *KV) Run(ctx context.Context, rec *history.Recorder, d time.Duration) error {
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-kv.stop:
			cancel()
		case <-pctx.Done():
		}
	}()
	var wg sync.WaitGroup
	errs := make([]error, len(kv.cfg.Members))
	for m := range kv.cfg.Members {
		wg.Add(1)
		go func() { defer wg.Done(); errs[m] = kv.runMember(pctx, ctx, rec, m, d, &wg) }()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	return nil
}

// runMember paces member m's ops (on pctx) and starts each in its own
// goroutine (on ctx), counted in wg.
func (kv *KV) runMember(pctx, ctx context.Context, rec *history.Recorder, m int, d time.Duration, wg *sync.WaitGroup) error {
	phase := time.Duration(float64(m) * float64(time.Second) / (kv.cfg.Rate * float64(len(kv.cfg.Members))))
	sched := Schedule{T0: rec.T0().Add(phase), Rate: kv.cfg.Rate}
	return sched.Pace(pctx, d-phase, func(k int, due time.Time) {
		wg.Add(1)
		go func() { defer wg.Done(); rec.Add(kv.op(ctx, rec, m, k, due)) }()
	})
}

// op runs op k of member m and returns its record.
func (kv *KV) op(ctx context.Context, rec *history.Recorder, m, k int, due time.Time) history.Op {
	member := kv.cfg.Members[m].Name
	kind, key, value := kv.plan(m, k)
	start := time.Now()
	c, cancel := context.WithTimeout(ctx, kv.cfg.Timeout)
	read, n, err := do(c, kv.clis[m], kind, key, value)
	cancel()
	op := history.Op{Caller: history.KVCaller(member, kind), Kind: kind, Via: member, Seq: k, Scheduled: rec.Offset(due), Start: rec.Offset(start),
		End: rec.Offset(time.Now()), Target: key, Value: value, Outcome: history.OK, Paced: true}
	if kind != history.OpPut {
		op.Value, op.Count = read, n
	}
	if err != nil {
		op.Outcome, op.Err = Classify(err), err.Error()
	}
	return op
}

// plan returns what op k of member m does: its kind, its key and, for a
// put, the value it writes.
func (kv *KV) plan(m, k int) (history.OpKind, string, string) {
	kind := kvKinds[k%len(kvKinds)]
	key := kv.cfg.Keys[(k/len(kvKinds)+m)%len(kv.cfg.Keys)]
	if kind != history.OpPut {
		return kind, key, ""
	}
	return kind, key, fmt.Sprintf("%s-%d", kv.cfg.Members[m].Name, k)
}

// do performs one operation: a put of value, or a get (serializable for
// SerGet) returning the value read and 1, or "" and 0 when the key is absent.
func do(ctx context.Context, cli *clientv3.Client, kind history.OpKind, key, value string) (string, int, error) {
	if kind == history.OpPut {
		_, err := cli.Put(ctx, key, value)
		return "", 0, err
	}
	var opts []clientv3.OpOption
	if kind == history.OpSerGet {
		opts = append(opts, clientv3.WithSerializable())
	}
	resp, err := cli.Get(ctx, key, opts...)
	if err != nil {
		return "", 0, err
	}
	if len(resp.Kvs) == 0 {
		return "", 0, nil
	}
	return string(resp.Kvs[0].Value), 1, nil
}

// ReadFinal reads every key linearizably through every member once the
// faults are healed, retrying each (every attempt with the traffic's
// deadline) until it is answered or within has passed, and records the
// last attempt per key as an OpGet via history.ViaEvery.
func (kv *KV) ReadFinal(ctx context.Context, rec *history.Recorder, within time.Duration) {
	deadline := time.Now().Add(within)
	name := history.KVCaller(history.ViaEvery, history.OpGet)
	for i, key := range kv.cfg.Keys {
		for {
			start := time.Now()
			c, cancel := context.WithTimeout(ctx, kv.cfg.Timeout)
			read, n, err := do(c, kv.all, history.OpGet, key, "")
			cancel()
			op := history.Op{Caller: name, Seq: i, Scheduled: rec.Offset(start), Start: rec.Offset(start), End: rec.Offset(time.Now()),
				Kind: history.OpGet, Via: history.ViaEvery, Target: key, Value: read, Count: n, Outcome: history.OK}
			if err != nil {
				op.Outcome, op.Err = Classify(err), err.Error()
			}
			if err == nil || ctx.Err() != nil || time.Now().Add(kv.cfg.Timeout).After(deadline) {
				rec.Add(op)
				break
			}
			if clock.SleepUntil(ctx, time.Now().Add(100*time.Millisecond)) != nil {
				return
			}
		}
	}
}

// During runs the traffic from rec's time zero (for at most d) while f
// runs, stops it when f returns, waits for the ops in flight, then makes
// the reads after healing (ReadFinal, within finalWithin). It returns f's
// error, or the traffic's.
func (kv *KV) During(ctx context.Context, rec *history.Recorder, d, finalWithin time.Duration, f func() error) error {
	done := make(chan error, 1)
	go func() { done <- kv.Run(ctx, rec, d) }()
	err := f()
	kv.Stop()
	if terr := <-done; err == nil && terr != nil {
		err = fmt.Errorf("key-value traffic: %w", terr)
	}
	if err != nil {
		return err
	}
	kv.ReadFinal(ctx, rec, finalWithin)
	return nil
}
