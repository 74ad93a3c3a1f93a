package nacos

import (
	"context"
	"errors"
	"fmt"

	"github.com/nacos-group/nacos-sdk-go/v2/vo"
)

// RegisterOnce registers one ephemeral instance (127.0.0.1:port, weight 1) of service through a
// new nacos-sdk-go client of o, once, and closes the client: its connection ends, so the server
// drops the instance again. It returns the registration's outcome once it was answered, or
// ctx's error once ctx ended first; done is closed once the client is closed (a client still
// starting when ctx ended is closed once its start returns: the SDK's start-up gives up after
// its server checks).
func RegisterOnce(ctx context.Context, o ClientOptions, service string, port int) (done <-chan struct{}, err error) {
	ch := make(chan struct{})
	res := make(chan error, 1)
	go func() {
		defer close(ch)
		c, err := NewClient(o)
		if err != nil {
			res <- err
			return
		}
		defer c.CloseClient()
		ok, err := c.RegisterInstance(vo.RegisterInstanceParam{Ip: "127.0.0.1", Port: uint64(port), Weight: 1, Enable: true,
			Healthy: true, Ephemeral: true, ServiceName: service, GroupName: Group})
		if err == nil && !ok {
			err = errors.New("the server said no")
		}
		res <- err
	}()
	select {
	case err := <-res:
		if err != nil {
			return ch, fmt.Errorf("registering 127.0.0.1:%d of %s through %s: %w", port, service, o.Server, err)
		}
		return ch, nil
	case <-ctx.Done():
		return ch, fmt.Errorf("registering 127.0.0.1:%d of %s through %s: %w", port, service, o.Server, ctx.Err())
	}
}
