package nacos

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nacos-group/nacos-sdk-go/v2/clients"
	"github.com/nacos-group/nacos-sdk-go/v2/clients/naming_client"
	"github.com/nacos-group/nacos-sdk-go/v2/common/constant"
	"github.com/nacos-group/nacos-sdk-go/v2/vo"
)

// ClientOptions configures one nacos-sdk-go naming client.
type ClientOptions struct {
	// Server is the server's HTTP address (host:port), or a Link's; a cluster's members as a
	// comma-separated list (the client picks one and moves to the next when it loses it).
	Server string
	// GRPCPort is the SDK gRPC port (of a single Server); 0 means each server's port + 1000, as
	// the SDK assumes.
	GRPCPort int
	// Dir holds the client's disk cache (Dir/cache/naming/public). Required: the SDK's
	// default is the working directory. (The SDK's log goes where SetSDKLog says.)
	Dir string
	// NotLoadCacheAtStart and UpdateCacheWhenEmpty are the SDK's switches (both false by
	// default: the SDK loads its disk cache at start and ignores an empty list).
	NotLoadCacheAtStart  bool
	UpdateCacheWhenEmpty bool
	// TimeoutMs is the SDK's request timeout; 0 keeps its default (10000).
	TimeoutMs uint64
	// LogLevel is the level of the SDK's own rolling log, which lives only while NewClient runs
	// (see SetSDKLog); "" means "warn".
	LogLevel string
}

// GoDefaults returns the SDK's own defaults (load the disk cache at start, ignore an empty
// list) for a client of server keeping its files in dir.
func GoDefaults(server, dir string) ClientOptions {
	return ClientOptions{Server: server, Dir: dir}
}

// JavaDefaults returns the Java client's defaults in the SDK's terms (namingLoadCacheAtStart
// false → NotLoadCacheAtStart; namingPushEmptyProtection false → UpdateCacheWhenEmpty).
func JavaDefaults(server, dir string) ClientOptions {
	o := GoDefaults(server, dir)
	o.NotLoadCacheAtStart, o.UpdateCacheWhenEmpty = true, true
	return o
}

// Validate reports the first unusable option, quoting it.
func (o ClientOptions) Validate() error {
	addrs, err := splitAddrs(o.Server)
	if err != nil {
		return fmt.Errorf("ClientOptions.Server (%q): %w", o.Server, err)
	}
	if len(addrs) > 1 && o.GRPCPort != 0 {
		return fmt.Errorf("ClientOptions.GRPCPort (%d) names one server's port, but Server lists %d", o.GRPCPort, len(addrs))
	}
	if o.Dir == "" {
		return errors.New("ClientOptions.Dir is empty (the SDK would write into the working directory)")
	}
	return nil
}

// NewClient creates a naming client with o.
func NewClient(o ClientOptions) (naming_client.INamingClient, error) {
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("creating a nacos-sdk-go client: %w", err)
	}
	cc := *constant.NewClientConfig(constant.WithNamespaceId(""), constant.WithCacheDir(filepath.Join(o.Dir, "cache")),
		constant.WithLogDir(filepath.Join(o.Dir, "log")), constant.WithNotLoadCacheAtStart(o.NotLoadCacheAtStart),
		constant.WithUpdateCacheWhenEmpty(o.UpdateCacheWhenEmpty), constant.WithLogLevel(orDefault(o.LogLevel, "warn")))
	if o.TimeoutMs > 0 {
		cc.TimeoutMs = o.TimeoutMs
	}
	var sc []constant.ServerConfig
	addrs, _ := splitAddrs(o.Server)
	for _, a := range addrs {
		host, port, _ := splitAddr(a)
		sc = append(sc, constant.ServerConfig{IpAddr: host, Port: uint64(port), GrpcPort: uint64(o.GRPCPort), ContextPath: "/nacos", Scheme: "http"})
	}
	c, err := clients.NewNamingClient(vo.NacosClientParam{ClientConfig: &cc, ServerConfigs: sc})
	quietSDK() // the client just made its own rolling log file the SDK's global logger
	if err != nil {
		return nil, fmt.Errorf("creating a nacos-sdk-go client of %s: %w", o.Server, err)
	}
	return c, nil
}

// splitAddrs splits a comma-separated list of host:port addresses, checking each.
func splitAddrs(list string) ([]string, error) {
	addrs := strings.Split(list, ",")
	for _, a := range addrs {
		if _, _, err := splitAddr(a); err != nil {
			return nil, err
		}
	}
	return addrs, nil
}

func splitAddr(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, err
	}
	port, err := strconv.Atoi(p)
	if err != nil || port <= 0 {
		return "", 0, fmt.Errorf("bad port in %q", addr)
	}
	return host, port, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
