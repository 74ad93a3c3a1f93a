package fakeservice

import (
	"context"
	"errors"
	"fmt"
	"sync"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
)

// methodAuthenticate is etcd's gRPC method that trades a user's name and
// password for a token.
const methodAuthenticate = "/etcdserverpb.Auth/Authenticate"

// Auth is etcd authentication for H2Conns: one token, fetched with
// Authenticate over the first connection that needs it and shared by every
// connection that holds the Auth (a fleet's), fetched again when etcd calls
// it invalid. etcd's tokens are the cluster's, not a connection's (a simple
// token is assigned on every member through raft; a JWT is verified by
// each), so one token serves every connection, and a storm does not
// authenticate — a password check that costs etcd milliseconds of CPU —
// once per registrant. Safe for concurrent use.
type Auth struct {
	user, password string
	mu             sync.Mutex
	tok            string
}

// NewAuth returns an Auth for user and password (etcd auth, as clientv3's
// Config.Username and Password).
func NewAuth(user, password string) *Auth { return &Auth{user: user, password: password} }

// token returns the token, fetching it with fetch when there is none (one
// fetch at a time: the others wait for it).
func (a *Auth) token(fetch func() (string, error)) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.tok != "" {
		return a.tok, nil
	}
	tok, err := fetch()
	if err != nil {
		return "", fmt.Errorf("authenticating as %s: %w", a.user, err)
	}
	a.tok = tok
	return tok, nil
}

// invalidate forgets tok (unless another connection already replaced it).
func (a *Auth) invalidate(tok string) {
	a.mu.Lock()
	if a.tok == tok {
		a.tok = ""
	}
	a.mu.Unlock()
}

// authenticate asks etcd for a token on this connection (the caller holds h.mu).
func (h *H2Conn) authenticate(ctx context.Context) (string, error) {
	var resp pb.AuthenticateResponse
	req := &pb.AuthenticateRequest{Name: h.o.Auth.user, Password: h.o.Auth.password}
	if err := h.roundTrip(ctx, methodAuthenticate, req, &resp, false, ""); err != nil {
		return "", err
	}
	if resp.Token == "" {
		return "", errors.New("etcd answered no token")
	}
	return resp.Token, nil
}

// staleToken reports whether a call failed on its token (expired, or the
// auth store's revision moved on), when clientv3 fetches a new one and
// retries.
func staleToken(err error) bool {
	var st *grpcStatus
	if !errors.As(err, &st) {
		return false
	}
	e := rpctypes.Error(toStatus(st))
	return errors.Is(e, rpctypes.ErrInvalidAuthToken) || errors.Is(e, rpctypes.ErrAuthOldRevision)
}
