package dns

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"sdchaos/fakeservice"
	"sdchaos/ports"
)

// InstanceConfig describes the world's instances: fakeservice instances
// (an HTTP server and the gRPC health service, a key on an etcd lease
// renewed on a ticker) that also put their SkyDNS record on that lease.
type InstanceConfig struct {
	// Service is how the instances register; GRPC is turned on (gRPC
	// clients dial the port their target names: GRPCDNSBasis).
	Service fakeservice.Config
	// Zone and Path are the etcd plugin's zone and key prefix.
	Zone, Path string
	// RecordTTL is the records' ttl (whole seconds); the lease TTL when 0.
	RecordTTL time.Duration
}

// recordTTL returns the records' ttl.
func (c InstanceConfig) recordTTL() time.Duration {
	if c.RecordTTL > 0 {
		return c.RecordTTL
	}
	return c.Service.TTL
}

// instanceHost is instance i's (from 1) loopback address: each instance on
// an address of its own, 127.0.1.i, so that an A answer lists every
// instance and gRPC's dns resolver (A records, the target's port:
// GRPCDNSBasis) balances over all of them. The whole of 127.0.0.0/8 is
// the loopback interface's, on the host and in a private namespace alike.
func instanceHost(i int) string { return fmt.Sprintf("127.0.1.%d", i) }

// Instance is one instance and its record.
type Instance struct {
	*fakeservice.Instance
	// Host is its loopback address, the host in its record.
	Host string
	// HTTPPort is its HTTP port, the port in its record (SRV); GRPCPort
	// its gRPC health port, the same on every instance's address.
	HTTPPort, GRPCPort int
	// RecordKey is its record's etcd key.
	RecordKey string

	value   string
	timeout time.Duration
	put     atomic.Int64 // the lease the record was last put on
	poke    chan struct{}
	stop    chan struct{}
	once    sync.Once
}

// Instances is the world's set of instances.
type Instances struct {
	List []*Instance
}

// StartInstances starts n instances j1…jn, each on its own address
// (instanceHost) with an HTTP port from alloc, the gRPC health service on
// one port from alloc on every address, and its own etcd client on
// endpoints, and puts their records. On error the ones started are closed.
func StartInstances(ctx context.Context, cfg InstanceConfig, n int, alloc *ports.Allocator, endpoints []string) (*Instances, error) {
	cfg.Service.GRPC = true
	if err := cfg.Service.Validate(); err != nil {
		return nil, fmt.Errorf("configuring the instances: %w", err)
	}
	grpcPort, err := alloc.Take("the instances' gRPC")
	if err != nil {
		return nil, err
	}
	set := &Instances{}
	for i := 1; i <= n; i++ {
		in, err := startInstance(ctx, cfg, i, alloc, grpcPort, endpoints)
		if err != nil {
			set.Close()
			return nil, err
		}
		set.List = append(set.List, in)
	}
	return set, nil
}

func startInstance(ctx context.Context, cfg InstanceConfig, i int, alloc *ports.Allocator, grpcPort int, endpoints []string) (*Instance, error) {
	id, host := fmt.Sprintf("j%d", i), instanceHost(i)
	port, err := alloc.Take("instance " + id)
	if err != nil {
		return nil, err
	}
	value, err := NewRecord(host, port, cfg.recordTTL()).Value()
	if err != nil {
		return nil, err
	}
	in := &Instance{Host: host, HTTPPort: port, GRPCPort: grpcPort, RecordKey: RecordKey(cfg.Path, cfg.Zone, cfg.Service.Service, id), value: value,
		timeout: cfg.Service.CallTimeout, poke: make(chan struct{}, 1), stop: make(chan struct{})}
	svc := cfg.Service
	svc.Host = host
	user := svc.OnRegister
	svc.OnRegister = func(id string, start, end time.Time, err error) {
		in.nudge()
		if user != nil {
			user(id, start, end, err)
		}
	}
	fi, err := fakeservice.StartWithGRPC(ctx, svc, id, port, grpcPort, endpoints)
	if err != nil {
		return nil, err
	}
	in.Instance = fi
	if err := in.putRecord(ctx); err != nil {
		fi.Close()
		return nil, fmt.Errorf("instance %s: putting its record: %w", id, err)
	}
	go in.keepRecord(svc.Renew)
	return in, nil
}

// nudge asks the record loop to look at the lease now.
func (in *Instance) nudge() {
	select {
	case in.poke <- struct{}{}:
	default:
	}
}

// putRecord puts the record on the instance's current lease.
func (in *Instance) putRecord(ctx context.Context) error {
	lease := in.Lease()
	c, cancel := context.WithTimeout(ctx, in.timeout)
	defer cancel()
	if _, err := in.Client().Put(c, in.RecordKey, in.value, clientv3.WithLease(lease)); err != nil {
		return fmt.Errorf("putting %s on lease %x: %w", in.RecordKey, lease, err)
	}
	in.put.Store(int64(lease))
	return nil
}

// keepRecord puts the record again whenever the instance registered on a
// new lease (told by OnRegister, checked every renew interval too, so a
// failed put is retried) until the instance crashes or closes.
func (in *Instance) keepRecord(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-in.stop:
			return
		case <-t.C:
		case <-in.poke:
		}
		if in.Crashed() {
			return
		}
		if clientv3.LeaseID(in.put.Load()) != in.Lease() {
			_ = in.putRecord(context.Background())
		}
	}
}

// Crash makes the instance stop answering and renewing (fakeservice's
// Crash); its record stays until the lease expires.
func (in *Instance) Crash() {
	in.once.Do(func() { close(in.stop) })
	in.Instance.Crash()
}

// Close stops the instance; its lease is left to expire.
func (in *Instance) Close() {
	in.once.Do(func() { close(in.stop) })
	in.Instance.Close()
}

// Ports returns the instances' HTTP ports (their records' ports), in order.
func (s *Instances) Ports() []uint16 {
	out := make([]uint16, len(s.List))
	for i, in := range s.List {
		out[i] = uint16(in.HTTPPort)
	}
	return out
}

// Close closes every instance.
func (s *Instances) Close() {
	for _, in := range s.List {
		in.Close()
	}
}
