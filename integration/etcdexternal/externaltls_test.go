package etcdexternal

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"

	"sdchaos/etcdcli"
)

// TestExternalTLSAndAuth runs cache-on-failure against etcd's own binary
// serving clients over TLS with client certificates and etcd auth on, with
// --cacert/--cert/--key/--user as etcdctl takes them: same verdicts as the
// embedded mode, nothing left behind. Then the re-registration storm, whose
// lean registrants speak TLS and etcd auth themselves.
func TestExternalTLSAndAuth(t *testing.T) {
	if testing.Short() {
		t.Skip("builds etcd and runs real processes")
	}
	bin := buildUpstreamEtcd(t) // before the lock: a build is not timed
	lockPackage(t)
	dir := t.TempDir()
	writeCerts(t, dir)
	info := transport.TLSInfo{TrustedCAFile: dir + "/ca.pem", CertFile: dir + "/client.pem", KeyFile: dir + "/client-key.pem"}
	cfg, err := info.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	defer etcdcli.Use(etcdcli.Settings{TLS: cfg})()
	l := startLocalEtcd(t, bin, 11300, dir)
	enableAuth(t, l, "root", "s3cret")
	defer etcdcli.Use(etcdcli.Settings{TLS: cfg, Username: "root", Password: "s3cret"})()
	l.waitHealthy(t)
	nem, _ := filepath.Abs("../../examples/nemesis/local-pidfile.json")
	want := parseVerdicts(t, mustRead(t, "../../results/cache-on-failure.json"))
	got, stderr := runExternal(t, l, "cache-on-failure", nem, 11400, "--cacert", info.TrustedCAFile, "--cert", info.CertFile,
		"--key", info.KeyFile, "--user", "root:s3cret")
	t.Logf("VERDICT cache-on-failure over TLS with auth: %s (embedded %s)", got.Verdict, want.Verdict)
	if got.Verdict != want.Verdict {
		t.Errorf("verdict %s, embedded %s\n%s", got.Verdict, want.Verdict, stderr)
	}
	checkNothingLeft(t, l, "cache-on-failure over TLS", 11400)
	runStormTLS(t, l, 11400, "--cacert", info.TrustedCAFile, "--cert", info.CertFile, "--key", info.KeyFile, "--user", "root:s3cret")
}

func enableAuth(t *testing.T, l *localEtcd, user, password string) {
	t.Helper()
	cli := l.client(t)
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cli.UserAdd(ctx, user, password); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.UserGrantRole(ctx, user, "root"); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.AuthEnable(ctx); err != nil {
		t.Fatal(err)
	}
}

// writeCerts writes a CA, a server certificate for 127.0.0.1 and a client
// certificate into dir (ca.pem, server.pem, server-key.pem, client.pem, client-key.pem).
func writeCerts(t *testing.T, dir string) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sdchaos test CA"}, IsCA: true,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, filepath.Join(dir, "ca.pem"), "CERTIFICATE", caDER)
	for i, name := range []string{"server", "client"} {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		c := &x509.Certificate{SerialNumber: big.NewInt(int64(2 + i)), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
		der, err := x509.CreateCertificate(rand.Reader, c, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kb, _ := x509.MarshalECPrivateKey(key)
		writePEM(t, filepath.Join(dir, name+".pem"), "CERTIFICATE", der)
		writePEM(t, filepath.Join(dir, name+"-key.pem"), "EC PRIVATE KEY", kb)
	}
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
