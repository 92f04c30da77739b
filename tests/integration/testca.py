"""A throw-away certificate authority for the TLS tests, made at run time
with the `openssl` command (Debian package openssl).

shared_ca() returns one TestCA per test process (made on first use in a
temporary directory that goes at exit); TestCA(directory) makes a new one.
Its files (PEM, keys unencrypted):

- ca_cert, ca_key: the CA ("heartsbot test CA"): the file a client names
  as its CA file (tls_ca_file, Client(cafile=...)).
- server_cert, server_key: for DNS:localhost and IP:127.0.0.1, signed by
  the CA: what the test servers present by default.
- wrong_cert, wrong_key: signed by the CA, for DNS:wrong.example only: a
  client that connects to 127.0.0.1 must refuse it (host name mismatch).
- self_cert, self_key: self-signed, for DNS:localhost and IP:127.0.0.1:
  right name, untrusted issuer.
- client_cert, client_key: a client certificate (CN heartsbot-client,
  extendedKeyUsage clientAuth) signed by the CA, for CertFP and SASL
  EXTERNAL; client_fingerprint is its SHA-256 fingerprint as InspIRCd and
  Anope write it (lower-case hex, no colons).

Elliptic-curve keys (P-256): quick to make, and every TLS stack here
(GnuTLS in ngIRCd and InspIRCd, OpenSSL in libcurl and Python) takes them.
Standard library only besides the openssl command.
"""

import atexit
import hashlib
import os
import shutil
import ssl
import subprocess
import tempfile
import threading

DAYS = "3"
_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
        "-nodes"]
_LOCAL_NAMES = "DNS:localhost,IP:127.0.0.1"


class CAError(RuntimeError):
    pass


def openssl_available():
    return shutil.which("openssl") is not None


def _run(argv, cwd):
    done = subprocess.run(["openssl"] + argv, cwd=cwd, capture_output=True,
                          text=True, timeout=60)
    if done.returncode != 0:
        raise CAError("openssl %s failed (%d):\n%s"
                      % (" ".join(argv), done.returncode,
                         done.stdout + done.stderr))


def fingerprint(cert_path):
    """The SHA-256 fingerprint of a PEM certificate, lower-case hex without
    colons (InspIRCd's and Anope's CertFP form)."""
    with open(cert_path, encoding="ascii") as f:
        der = ssl.PEM_cert_to_DER_cert(f.read())
    return hashlib.sha256(der).hexdigest()


class TestCA:
    """The CA and its certificates in `directory` (made now)."""

    def __init__(self, directory):
        if not openssl_available():
            raise CAError("the openssl command is not installed")
        self.dir = os.fspath(directory)
        os.makedirs(self.dir, exist_ok=True)
        self.ca_cert, self.ca_key = self._paths("ca")
        _run(["req", "-x509"] + _KEY + [
            "-keyout", self.ca_key, "-out", self.ca_cert, "-days", DAYS,
            "-subj", "/CN=heartsbot test CA",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign"], self.dir)
        self.server_cert, self.server_key = self._signed(
            "server", "localhost", "subjectAltName=" + _LOCAL_NAMES,
            "serverAuth")
        self.wrong_cert, self.wrong_key = self._signed(
            "wrong", "wrong.example", "subjectAltName=DNS:wrong.example",
            "serverAuth")
        self.client_cert, self.client_key = self._signed(
            "client", "heartsbot-client", None, "clientAuth")
        self.client_fingerprint = fingerprint(self.client_cert)
        self.self_cert, self.self_key = self._paths("self")
        _run(["req", "-x509"] + _KEY + [
            "-keyout", self.self_key, "-out", self.self_cert, "-days", DAYS,
            "-subj", "/CN=localhost",
            "-addext", "subjectAltName=" + _LOCAL_NAMES,
            "-addext", "basicConstraints=critical,CA:FALSE",
            "-addext", "extendedKeyUsage=serverAuth"], self.dir)

    def _paths(self, name):
        return (os.path.join(self.dir, name + ".crt"),
                os.path.join(self.dir, name + ".key"))

    def _signed(self, name, common_name, alt_names, usage):
        cert, key = self._paths(name)
        csr = os.path.join(self.dir, name + ".csr")
        ext = os.path.join(self.dir, name + ".ext")
        lines = ["basicConstraints=critical,CA:FALSE",
                 "keyUsage=critical,digitalSignature,keyEncipherment",
                 "extendedKeyUsage=" + usage]
        if alt_names:
            lines.append(alt_names)
        with open(ext, "w") as f:
            f.write("\n".join(lines) + "\n")
        _run(["req", "-new"] + _KEY + ["-keyout", key, "-out", csr,
                                       "-subj", "/CN=" + common_name],
             self.dir)
        _run(["x509", "-req", "-in", csr, "-CA", self.ca_cert,
              "-CAkey", self.ca_key, "-CAcreateserial", "-days", DAYS,
              "-sha256", "-extfile", ext, "-out", cert], self.dir)
        return cert, key


_cached = None
_cached_lock = threading.Lock()


def shared_ca():
    """The TestCA of this test process, made on first use in a temporary
    directory removed at exit. Raises CAError when openssl is missing."""
    global _cached
    with _cached_lock:
        if _cached is None:
            directory = tempfile.mkdtemp(prefix="heartsbot-ca-")
            atexit.register(shutil.rmtree, directory, True)
            _cached = TestCA(directory)
        return _cached
