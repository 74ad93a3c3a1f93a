package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
)

// zkLister reads Curator's service-discovery layout: the children of
// {chroot}{SDCHAOS_BASE_PATH}/{SDCHAOS_SERVICE}, each holding Curator's JSON
// ServiceInstance (address, port). The connect string's chroot
// ("h:p,h:p/chroot") is joined to the path, as a Java client does.
type zkLister struct {
	conn *zk.Conn
	dir  string
}

// zkSession is the session the client asks for.
const zkSession = 10 * time.Second

func newZKLister(connect string) (lister, error) {
	servers, chroot, _ := strings.Cut(connect, "/")
	conn, _, err := zk.Connect(strings.Split(servers, ","), zkSession, zk.WithLogInfo(false))
	if err != nil {
		return nil, err
	}
	dir := path.Join("/", chroot, os.Getenv("SDCHAOS_BASE_PATH"), os.Getenv("SDCHAOS_SERVICE"))
	return &zkLister{conn: conn, dir: dir}, nil
}

type curatorInstance struct {
	Address string `json:"address"`
	Port    *int   `json:"port"`
}

// list reads the service's children, then each one's data; go-zookeeper
// takes no context, so the read runs apart and ctx bounds the wait.
func (z *zkLister) list(ctx context.Context) ([]string, error) {
	type result struct {
		addrs []string
		err   error
	}
	done := make(chan result, 1)
	go func() {
		addrs, err := z.read()
		done <- result{addrs, err}
	}()
	select {
	case r := <-done:
		return r.addrs, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (z *zkLister) read() ([]string, error) {
	ids, _, err := z.conn.Children(z.dir)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	addrs := make([]string, 0, len(ids))
	for _, id := range ids {
		b, _, err := z.conn.Get(path.Join(z.dir, id))
		if errors.Is(err, zk.ErrNoNode) {
			continue // gone since the children were read
		}
		if err != nil {
			return nil, err
		}
		var in curatorInstance
		if err := json.Unmarshal(b, &in); err != nil || in.Port == nil {
			return nil, fmt.Errorf("instance %s: not a Curator service instance: %q", id, b)
		}
		addrs = append(addrs, net.JoinHostPort(in.Address, strconv.Itoa(*in.Port)))
	}
	return addrs, nil
}

func (z *zkLister) close() { z.conn.Close() }
