package fakeservice

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"sdchaos/clock"
)

// H2Conn is a minimal gRPC client connection for registrants: one TCP
// connection speaking HTTP/2, dialled on first use, carrying one call at a
// time, read only while a call waits for its answer (no goroutine of its
// own, buffers of 1 KiB). A call that fails on the wire or passes its
// deadline closes the connection; the next call dials again. It keeps a
// registrant's cost to a socket and a few KiB where a grpc-go ClientConn
// costs about 90 KiB and eight goroutines, so the harness stays small next
// to the registry it loads. Safe for concurrent use (calls queue).
type H2Conn struct {
	addr string
	o    H2Options
	mu   sync.Mutex
	c    net.Conn
	bw   *bufio.Writer
	fr   *http2.Framer
	enc  *hpack.Encoder
	hbuf bytes.Buffer // the header block being encoded
	msg  []byte       // the request message being sent
	in   []byte       // the answer being read
	next uint32
	// unacked is how many DATA bytes were received since the last
	// connection-level WINDOW_UPDATE.
	unacked uint32
}

// windowUpdateAt is how many received bytes are acknowledged at once: a
// quarter of HTTP/2's initial 64 KiB connection window, as grpc-go's
// transport does (an update per answer would cost the registrant, the
// proxy and etcd a packet per call that no real client sends).
const windowUpdateAt = 16 << 10

// H2Options are what a connection needs beyond its endpoint: where it
// dials from, and the TLS and etcd auth of a cluster that wants them (as
// clientv3's Config.TLS, Username and Password).
type H2Options struct {
	// Source, when valid, is the local address dialled from (a packet
	// filter can then tell this connection's packets from others').
	Source netip.Addr
	// TLS, when set, secures the connection (ALPN "h2", as gRPC requires);
	// ServerName should name the member (the endpoint may be a proxy).
	TLS *tls.Config
	// Auth, when set, gives every call etcd's auth token; the connections
	// of a fleet share one.
	Auth *Auth
	// Cut, when set, is a blackhole the harness puts on the connection's
	// link (see Cut); the connections of a fleet share one.
	Cut *Cut
}

// NewH2Conn returns a connection to endpoint ("http://host:port",
// "https://host:port" or "host:port"); nothing is dialled yet.
func NewH2Conn(endpoint string) *H2Conn { return NewH2ConnWith(endpoint, H2Options{}) }

// NewH2ConnWith is NewH2Conn with options.
func NewH2ConnWith(endpoint string, o H2Options) *H2Conn {
	if o.TLS != nil {
		o.TLS = o.TLS.Clone()
		o.TLS.NextProtos = []string{"h2"}
	}
	addr := strings.TrimPrefix(strings.TrimPrefix(endpoint, "http://"), "https://")
	return &H2Conn{addr: addr, o: o}
}

// Close closes the connection (a later call dials again).
func (h *H2Conn) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.drop()
	return nil
}

func (h *H2Conn) drop() {
	if h.c != nil {
		_ = h.c.Close()
		h.c, h.fr, h.bw, h.enc = nil, nil, nil, nil
	}
}

// Unary calls method (e.g. "/etcdserverpb.KV/Put") with req and decodes
// the answer into resp.
func (h *H2Conn) Unary(ctx context.Context, method string, req, resp proto.Message) error {
	return h.call(ctx, method, req, resp, false)
}

// StreamOnce opens a stream on method, sends req, decodes the first answer
// into resp and cancels the stream (as clientv3's KeepAliveOnce).
func (h *H2Conn) StreamOnce(ctx context.Context, method string, req, resp proto.Message) error {
	return h.call(ctx, method, req, resp, true)
}

func (h *H2Conn) call(ctx context.Context, method string, req, resp proto.Message, stream bool) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	err := h.authedTrip(ctx, method, req, resp, stream)
	var st *grpcStatus
	if err != nil && !errors.As(err, &st) {
		h.drop() // the connection's state is unknown
		if e := ctx.Err(); e != nil {
			return e
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return context.DeadlineExceeded // the connection's deadline is set when the call's passes
		}
		return status.Error(codes.Unavailable, err.Error())
	}
	if st != nil {
		return toStatus(st)
	}
	return nil
}

// toStatus returns st as a gRPC status error.
func toStatus(st *grpcStatus) error { return status.Error(st.code, st.msg) }

// grpcStatus is a call's non-OK gRPC status from the server's trailers.
type grpcStatus struct {
	code codes.Code
	msg  string
}

// Error returns the status message.
func (s *grpcStatus) Error() string { return s.msg }

// authedTrip is roundTrip with the fleet's auth token, when there is one:
// a token etcd calls invalid (expired, or the auth store moved on) is
// fetched again and the call sent once more, as clientv3 does.
func (h *H2Conn) authedTrip(ctx context.Context, method string, req, resp proto.Message, stream bool) error {
	if h.o.Auth == nil {
		return h.roundTrip(ctx, method, req, resp, stream, "")
	}
	for try := 0; ; try++ {
		tok, err := h.o.Auth.token(func() (string, error) { return h.authenticate(ctx) })
		if err != nil {
			return err
		}
		err = h.roundTrip(ctx, method, req, resp, stream, tok)
		if try > 0 || !staleToken(err) {
			return err
		}
		h.o.Auth.invalidate(tok)
	}
}

func (h *H2Conn) roundTrip(ctx context.Context, method string, req, resp proto.Message, stream bool, token string) error {
	if err := h.dial(ctx); err != nil {
		return err
	}
	c := h.c
	// The call's deadline or its cancellation (the fleet closing) unblocks
	// it; only then is the connection's deadline set, in the past. A call
	// that ends in time thus arms no timer of the poller (a deadline set on
	// the connection would fire, uselessly, after every call).
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	defer func() {
		if !stop() {
			h.drop() // the deadline came as the call ended: the connection's is spent
		}
	}()
	id := h.next
	h.next += 2
	if err := h.send(ctx, id, method, req, !stream, token); err != nil {
		return err
	}
	msg, err := h.receive(id, stream)
	if err != nil {
		return err
	}
	if stream {
		_ = h.fr.WriteRSTStream(id, http2.ErrCodeCancel)
		_ = h.bw.Flush()
	}
	if err := proto.Unmarshal(msg, resp); err != nil {
		return fmt.Errorf("decoding the answer to %s: %w", method, err)
	}
	return nil
}

// dial opens the connection and sends the HTTP/2 preface and settings. A
// refused dial is retried after 100 ms, growing × 1.6 up to 1 s, until the
// call's deadline (as the harness's etcd clients wait for a ready
// connection: a dead endpoint is a timeout, not a failure).
func (h *H2Conn) dial(ctx context.Context) error {
	if h.c != nil {
		return nil
	}
	if h.o.Cut != nil {
		if err := h.o.Cut.waitOpen(ctx); err != nil { // a blackhole accepts the connection and answers nothing
			return err
		}
	}
	d := net.Dialer{KeepAlive: -1} // the calls' deadlines find a dead peer; TCP keep-alives would cost four setsockopts a dial
	if h.o.Source.IsValid() {
		d.LocalAddr = &net.TCPAddr{IP: h.o.Source.AsSlice()}
	}
	c, err := d.DialContext(ctx, "tcp", h.addr)
	for wait := 100 * time.Millisecond; err != nil; wait = min(wait*8/5, time.Second) {
		if clock.SleepUntil(ctx, time.Now().Add(wait)) != nil {
			return ctx.Err()
		}
		c, err = d.DialContext(ctx, "tcp", h.addr)
	}
	if h.o.Cut != nil {
		c = h.o.Cut.wrap(c)
	}
	if h.o.TLS != nil {
		if c, err = handshake(ctx, c, h.o.TLS); err != nil {
			return err
		}
	}
	h.c, h.next, h.unacked = c, 1, 0
	h.bw = bufio.NewWriterSize(c, 1024)
	h.fr = http2.NewFramer(h.bw, bufio.NewReaderSize(c, 1024))
	h.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	h.enc = hpack.NewEncoder(&h.hbuf)
	if _, err := h.bw.WriteString(http2.ClientPreface); err != nil {
		return err
	}
	return h.fr.WriteSettings(http2.Setting{ID: http2.SettingEnablePush, Val: 0},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1 << 20})
}

// handshake secures c with TLS within ctx and requires HTTP/2 (ALPN h2).
func handshake(ctx context.Context, c net.Conn, cfg *tls.Config) (net.Conn, error) {
	tc := tls.Client(c, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("TLS handshake: %w", err)
	}
	if p := tc.ConnectionState().NegotiatedProtocol; p != "h2" {
		_ = tc.Close()
		return nil, fmt.Errorf("TLS: the server chose protocol %q, want h2", p)
	}
	return tc, nil
}

// send writes the request's headers (with token, when not empty) and its
// one message. The buffers are the connection's: the framer copies them
// into its writer at once.
func (h *H2Conn) send(ctx context.Context, id uint32, method string, req proto.Message, end bool, token string) error {
	var err error
	h.msg = append(h.msg[:0], 0, 0, 0, 0, 0)
	if h.msg, err = (proto.MarshalOptions{}).MarshalAppend(h.msg, req); err != nil {
		return err
	}
	binary.BigEndian.PutUint32(h.msg[1:5], uint32(len(h.msg)-5))
	h.encodeHeaders(ctx, method, token)
	if err := h.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: h.hbuf.Bytes(), EndHeaders: true}); err != nil {
		return err
	}
	if err := h.fr.WriteData(id, end, h.msg); err != nil {
		return err
	}
	return h.bw.Flush()
}

// encodeHeaders encodes a request's header block into h.hbuf. The fields
// that change with every call (the deadline, the token) are never indexed:
// in HPACK's dynamic table they would only push the others out, on both
// sides of the connection.
func (h *H2Conn) encodeHeaders(ctx context.Context, method, token string) {
	h.hbuf.Reset()
	scheme := "http"
	if h.o.TLS != nil {
		scheme = "https"
	}
	h.field(":method", "POST", false)
	h.field(":scheme", scheme, false)
	h.field(":path", method, false)
	h.field(":authority", h.addr, false)
	h.field("content-type", "application/grpc", false)
	h.field("te", "trailers", false)
	if dl, ok := ctx.Deadline(); ok {
		h.field("grpc-timeout", strconv.FormatInt(max(time.Until(dl).Microseconds(), 1), 10)+"u", true)
	}
	if token != "" {
		h.field(rpctypes.TokenFieldNameGRPC, token, true)
	}
}

func (h *H2Conn) field(name, value string, changing bool) {
	_ = h.enc.WriteField(hpack.HeaderField{Name: name, Value: value, Sensitive: changing})
}

// receive reads frames until stream id's message and status (or, for a
// stream, its first message) arrived, answering the connection's own
// frames (settings, pings) and returning flow-control credit as it goes.
// Those answers are buffered: they leave with the call's next write (the
// stream's reset, or the next request), one packet instead of one each.
func (h *H2Conn) receive(id uint32, stream bool) ([]byte, error) {
	h.in = h.in[:0]
	for {
		f, err := h.fr.ReadFrame()
		if err != nil {
			return nil, err
		}
		done, err := h.frame(f, id, &h.in)
		if err != nil || done {
			return message(h.in, err)
		}
		if data := h.in; stream && len(data) >= 5 && len(data) >= 5+int(binary.BigEndian.Uint32(data[1:5])) {
			return message(data, nil)
		}
	}
}

// frame handles one frame; done when stream id ended.
func (h *H2Conn) frame(f http2.Frame, id uint32, data *[]byte) (bool, error) {
	switch f := f.(type) {
	case *http2.SettingsFrame:
		if !f.IsAck() {
			return false, h.fr.WriteSettingsAck()
		}
	case *http2.PingFrame:
		if !f.IsAck() {
			return false, h.fr.WritePing(true, f.Data)
		}
	case *http2.GoAwayFrame:
		if id > f.LastStreamID {
			return true, fmt.Errorf("the server is going away (%v)", f.ErrCode)
		}
	case *http2.DataFrame:
		if h.unacked += f.Length; h.unacked >= windowUpdateAt {
			if err := h.fr.WriteWindowUpdate(0, h.unacked); err != nil {
				return false, err
			}
			h.unacked = 0
		}
		if f.StreamID == id {
			*data = append(*data, f.Data()...)
			return f.StreamEnded(), nil
		}
	case *http2.RSTStreamFrame:
		if f.StreamID == id {
			return true, fmt.Errorf("stream reset by the server (%v)", f.ErrCode)
		}
	case *http2.MetaHeadersFrame:
		if f.StreamID == id {
			return trailers(f)
		}
	}
	return false, nil
}

// trailers reads a call's status from its headers or trailers.
func trailers(f *http2.MetaHeadersFrame) (bool, error) {
	code := f.PseudoValue("status")
	if code != "" && code != "200" {
		return true, fmt.Errorf("HTTP status %s", code)
	}
	s := field(f, "grpc-status")
	if s == "" {
		return f.StreamEnded(), nil
	}
	n, _ := strconv.Atoi(s)
	if n != 0 {
		msg, err := url.PathUnescape(field(f, "grpc-message"))
		if err != nil {
			msg = field(f, "grpc-message")
		}
		return true, &grpcStatus{code: codes.Code(n), msg: msg}
	}
	return true, nil
}

// field returns the value of a regular header field ("" if absent).
func field(f *http2.MetaHeadersFrame, name string) string {
	for _, hf := range f.RegularFields() {
		if hf.Name == name {
			return hf.Value
		}
	}
	return ""
}

// message returns the one gRPC message of data.
func message(data []byte, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	if len(data) < 5 || len(data) < 5+int(binary.BigEndian.Uint32(data[1:5])) {
		return nil, errors.New("the answer holds no whole message")
	}
	return data[5 : 5+binary.BigEndian.Uint32(data[1:5])], nil
}
