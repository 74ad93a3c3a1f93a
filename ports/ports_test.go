package ports

import (
	"errors"
	"net"
	"strings"
	"testing"
)

func TestTakeSkipsNothingAndNamesBusyPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	busy := l.Addr().(*net.TCPAddr).Port
	a := New(busy, "--port-base")
	_, err = a.Take("etcd n1 client")
	if !errors.Is(err, ErrInUse) {
		t.Fatalf("err = %v, want ErrInUse", err)
	}
	for _, want := range []string{"etcd n1 client", "--port-base", "127.0.0.1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}
