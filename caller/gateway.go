package caller

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"sort"
	"time"
)

// GatewaySource lists the keys under a prefix through etcd's JSON gateway
// (POST /v3/kv/range over plain HTTP), trying the endpoints in turn, as the
// article's client did. A refused connection fails at once and the next
// endpoint is tried; the list fails when every endpoint failed. It is the
// fail-fast counterpart of EtcdSource, whose gRPC client retries an
// unavailable cluster until the caller's deadline.
type GatewaySource struct {
	// Endpoints are the members' client URLs ("http://127.0.0.1:9150").
	Endpoints []string
	Prefix    string
	// Serializable reads from the contacted member without quorum.
	Serializable bool
	// Client sends the requests; nil uses a client without keep-alives.
	Client *http.Client
}

type rangeRequest struct {
	Key          string `json:"key"`
	RangeEnd     string `json:"range_end"`
	Serializable bool   `json:"serializable,omitempty"`
}

type rangeResponse struct {
	Kvs []struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	} `json:"kvs"`
}

// List reads the prefix from the first endpoint that answers, sorted by key.
func (s GatewaySource) List(ctx context.Context) ([]Endpoint, error) {
	body, err := json.Marshal(rangeRequest{Key: b64(s.Prefix), RangeEnd: b64(prefixEnd(s.Prefix)), Serializable: s.Serializable})
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, ep := range s.Endpoints {
		out, err := s.listFrom(ctx, ep, body)
		if err == nil {
			return out, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, fmt.Errorf("listing %s through the JSON gateway: %w", s.Prefix, errors.Join(errs...))
}

func (s GatewaySource) listFrom(ctx context.Context, endpoint string, body []byte) ([]Endpoint, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint+"/v3/kv/range", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client().Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s: %.200s", endpoint, resp.Status, data)
	}
	var rr rangeResponse
	if err := json.Unmarshal(data, &rr); err != nil {
		return nil, fmt.Errorf("%s: decoding the range response: %w", endpoint, err)
	}
	out := make([]Endpoint, 0, len(rr.Kvs))
	for _, kv := range rr.Kvs {
		k, _ := base64.StdEncoding.DecodeString(kv.Key)
		v, _ := base64.StdEncoding.DecodeString(kv.Value)
		out = append(out, Endpoint{ID: path.Base(string(k)), Addr: string(v)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func (s GatewaySource) client() *http.Client {
	if s.Client != nil {
		return s.Client
	}
	return &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// prefixEnd returns the smallest key after every key with the prefix (as
// clientv3.GetPrefixRangeEnd does).
func prefixEnd(prefix string) string {
	end := []byte(prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return string(end[:i+1])
		}
	}
	return "\x00"
}
