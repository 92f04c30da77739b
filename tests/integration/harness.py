"""Integration-test harness: throw-away IRC servers, scripted IRC clients
and the real bot binary, all on loopback, all cleaned up.

Python 3.11 standard library only (run it with Debian's /usr/bin/python3).

What is here:

- free_port(): a free TCP port on 127.0.0.1.
- Ngircd(tmpdir, strict=False): a private ngIRCd 26 on 127.0.0.1:PORT,
  started in the foreground (`ngircd -n -f CONF`); stop() and start() again
  on the same port (for reconnect tests); kill() for an abrupt death.
- Inspircd(tmpdir, strict=True): a private InspIRCd 3 whose connect class
  kills a client for "Excess Flood" instead of delaying it.
- Ngircd(tls=True), Inspircd(tls=True): a TLS port too, with a
  certificate of the test CA (testca.py); Inspircd(services=True): the
  IRCv3 modules and Anope services linked to it (Anope: NickServ
  accounts, SASL PLAIN and EXTERNAL).
- Client(port, nick): a scripted IRC client on a raw socket (or TLS);
  a reader thread records every line (PINGs are answered there);
  wait_for() and friends find what arrived; caps= and sasl= for CAP
  negotiation and SASL, ns_register() and friends for NickServ.
- bot_config() / to_toml() / Bot(tmpdir, config): writes a bot config and
  runs $HEARTSBOT (default build/heartsbot) with --config.
- HarnessTestCase and main(): a unittest base with a temp dir, and a runner
  that exits 77 (CTest's skip code) when every test was skipped.
- For games: the bot's card texts read back (parse_hand, parse_private,
  parse_trick_line, cards_in ...), Player (a scripted person at a table)
  and play_game() (drives players to the end of a game), read_records(),
  archive_path() and replay() for a room's archive.jsonl, ConsoleBot for
  --console.

Every process started here is registered; it is stopped by its owner's
stop(), by the context manager, by atexit, and, should the test process
itself die (even by SIGKILL), by the kernel (PR_SET_PDEATHSIG) or, for a
process that lost that setting (ngIRCd as root changes its credentials),
by a watchdog process that kills what is left once we are gone. Nothing
outlives a run.

Server settings and their flood limits (README.md here has the details):

ngIRCd 26 never disconnects a client for sending fast; it delays it. It
handles at most 3 commands of a client per main-loop pass; if more are
waiting, or the client sent 256 bytes or more within the second, the
client gets a 1 s penalty during which ngIRCd neither reads nor handles
its input. Measured: a burst of 30 short lines comes through at 3 lines
per second (9 s), none lost. A line over 512 bytes does disconnect
("Request too long"). strict=True keeps this default (MaxPenaltyTime -1);
strict=False sets MaxPenaltyTime = 0, which turns penalties off so tests
run at full speed.

InspIRCd 3, strict=True: connect class threshold=10, commandrate=1000,
fakelag="no": every command adds 1 to a penalty counter that drains by 1
per second; when it reaches 10 the client is quit with "Excess Flood".
A client sending 30 lines at once is killed after the 10th; one line per
second is never killed. recvq=8192 (more unread input: "RecvQ exceeded").
strict=False is the same class with fakelag="yes" (delay, don't kill).
"""

import atexit
import base64
import codecs
import ctypes
import dataclasses
import json
import os
import pty
import re
import resource
import select
import shutil
import signal
import socket
import ssl
import stat
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
import unittest

import testca

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
HOST = "127.0.0.1"

# ----------------------------------------------------------------------
# Processes: a registry, and cleanup that cannot be skipped.

_live = set()          # objects with a _kill() method
_live_lock = threading.Lock()


def _register(obj):
    with _live_lock:
        _live.add(obj)


def _unregister(obj):
    with _live_lock:
        _live.discard(obj)


def kill_everything():
    """Kills every process this harness started and has not yet stopped."""
    with _live_lock:
        objs = list(_live)
    for obj in objs:
        try:
            obj._kill()
        except Exception:  # cleanup must go on
            pass


def _at_exit():
    kill_everything()
    if _watchdog is not None:
        try:
            _watchdog.stdin.close()   # nothing left for it to kill: it exits
            _watchdog.wait(5.0)
        except (OSError, subprocess.TimeoutExpired):
            pass


atexit.register(_at_exit)


def _on_sigterm(signum, frame):
    # CTest's timeout and a plain `kill` send SIGTERM; turn it into an exit
    # so that atexit runs and the servers go with us.
    raise SystemExit(128 + signum)


if (threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL):
    signal.signal(signal.SIGTERM, _on_sigterm)

_PR_SET_PDEATHSIG = 1
try:
    _libc = ctypes.CDLL(None, use_errno=True)
except OSError:
    _libc = None


def _child_setup(sig, user=None, core=True):
    """preexec_fn: the child gets `sig` when the test process dies, even by
    SIGKILL. (The signal follows the thread that forked: start processes
    from the main thread, as unittest does.) user=(uid, gid): it runs as
    that user (set first: a change of credentials clears the signal).
    core=False: no core dump (InspIRCd with ssl_gnutls crashes as it
    exits)."""
    def setup():
        if not core:
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if user is not None:
            os.setgroups([])
            os.setgid(user[1])
            os.setuid(user[0])
        if _libc is not None:
            _libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    return setup


# PR_SET_PDEATHSIG is cleared when a process changes its credentials, and
# ngIRCd started as root does (setuid/setgid to its ServerUID, even root).
# So a watchdog process reads the PIDs we start from a pipe; when the pipe
# closes (this process is gone, however it died) it SIGKILLs those still
# running: the same PID with the same start time, never a reused PID.
_WATCHDOG = r"""
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
def start_time(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None
pids = {}
for line in sys.stdin:
    word = line.split()
    if len(word) == 2:
        pids[int(word[0])] = word[1]
for pid, started in pids.items():
    if start_time(pid) == started:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
"""
_watchdog = None
_watchdog_lock = threading.Lock()


def _start_time(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _watch(pid):
    """Hands a PID to the watchdog (started on first use)."""
    global _watchdog
    started = _start_time(pid)
    if started is None:
        return
    with _watchdog_lock:
        if _watchdog is None or _watchdog.poll() is not None:
            _watchdog = subprocess.Popen(
                [sys.executable, "-c", _WATCHDOG], stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True)
        try:
            _watchdog.stdin.write(("%d %s\n" % (pid, started)).encode())
            _watchdog.stdin.flush()
        except OSError:
            pass


def _spawn(argv, log_path, death_signal, env=None, cwd=None, user=None,
           core=True):
    log = open(log_path, "ab")
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, env=env, cwd=cwd,
                                preexec_fn=_child_setup(death_signal, user,
                                                        core))
    finally:
        log.close()
    _watch(proc.pid)
    return proc


def _terminate(proc, timeout=10.0):
    """SIGTERM, wait up to `timeout`, then SIGKILL. Returns the exit code
    (negative: killed by that signal), or None if there was no process."""
    if proc is None:
        return None
    if proc.poll() is None:
        try:
            proc.send_signal(signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def port_accepts(port, host=HOST, timeout=0.5):
    """True if something accepts TCP connections on host:port."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def which(name):
    """The path of an executable on PATH or in the sbin directories."""
    path = os.environ.get("PATH", "") + ":/usr/sbin:/sbin:/usr/local/sbin"
    return shutil.which(name, path=path)


# ----------------------------------------------------------------------
# Servers.

class ServerError(RuntimeError):
    pass


class _Server:
    """A private IRC server: config in its own directory, run in the
    foreground, output in a log file. Use as a context manager or call
    stop(); either way atexit kills it."""

    name = "ircd"
    binary = None

    tls = False
    tls_port = None

    def __init__(self, tmpdir, strict, port=None, start=True):
        self.strict = strict
        self.dir = os.path.join(os.fspath(tmpdir), self.name)
        os.makedirs(self.dir, exist_ok=True)
        self.log_path = os.path.join(self.dir, self.name + ".log")
        self.conf_path = os.path.join(self.dir, self.name + ".conf")
        self.port = port
        self.proc = None
        self._fixed_port = port is not None
        if start:
            self.start()

    @classmethod
    def available(cls):
        return which(cls.binary) is not None

    def _tls_setup(self, tls, cert, key):
        """tls=True: a TLS port too (tls_port), with `cert`/`key` or, by
        default, the test CA's certificate for localhost and 127.0.0.1
        (testca.shared_ca(): clients verify it with ca.ca_cert)."""
        self.tls = bool(tls)
        self.ca = None
        self.tls_cert = cert
        self.tls_key = key
        if not self.tls:
            return
        if cert is None or key is None:
            self.ca = testca.shared_ca()
            self.tls_cert = cert or self.ca.server_cert
            self.tls_key = key or self.ca.server_key

    def _ports(self):
        """The ports the server listens on for clients."""
        return [p for p in (self.port, self.tls_port) if p is not None]

    def _write_config(self):
        raise NotImplementedError

    def _argv(self):
        raise NotImplementedError

    def start(self, timeout=15.0):
        """Starts the server (again, on the same port if it ran before) and
        waits until the port accepts connections."""
        if self.alive():
            return
        if not self.available():
            raise ServerError(self.binary + " is not installed")
        attempts = 1 if self._fixed_port else 3
        for attempt in range(attempts):
            if self.port is None:
                self.port = free_port()
            if self.tls and self.tls_port is None:
                self.tls_port = free_port()
            self._write_config()
            with open(self.log_path, "ab") as log:
                log.write(("--- start on port %d\n" % self.port).encode())
            self.proc = _spawn(self._argv(), self.log_path, signal.SIGKILL,
                               cwd=self.dir, core=False)
            _register(self)
            if self._wait_ready(timeout):
                self._fixed_port = True   # restarts keep this port
                return
            _terminate(self.proc, 2.0)
            _unregister(self)
            if not self._fixed_port:
                self.port = None          # taken meanwhile: try another
                self.tls_port = None
        raise ServerError("%s did not start on port %s; log:\n%s"
                          % (self.name, self.port, self.log_tail()))

    def _wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            if all(port_accepts(p) for p in self._ports()):
                return True
            time.sleep(0.05)
        return False

    def stop(self, timeout=10.0):
        """SIGTERM (the server says goodbye to its clients), wait, SIGKILL
        after `timeout`. Returns the exit code. The port stays ours for
        start()."""
        rc = _terminate(self.proc, timeout)
        _unregister(self)
        return rc

    def kill(self):
        """SIGKILL: the server vanishes without a word to its clients."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        _unregister(self)

    def _kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def restart(self):
        self.stop()
        self.start()

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def log(self):
        try:
            with open(self.log_path, encoding="utf-8",
                      errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def log_tail(self, lines=30):
        return "\n".join(self.log().splitlines()[-lines:])

    def client(self, nick, tls=False, **kw):
        """A registered Client on this server; tls=True: on its TLS port,
        verifying with the test CA unless `cafile` is given."""
        if not tls:
            return Client(self.port, nick, **kw)
        if "cafile" not in kw and self.ca is not None:
            kw["cafile"] = self.ca.ca_cert
        return Client(self.tls_port, nick, tls=True, **kw)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def __repr__(self):
        return "<%s port=%s alive=%s>" % (self.name, self.port, self.alive())


class Ngircd(_Server):
    """ngIRCd 26 on 127.0.0.1. strict=False turns ngIRCd's input throttling
    off (MaxPenaltyTime = 0); strict=True keeps the default (about 3
    commands per 1-2 s per client; excess is delayed, never dropped).

    No PAM, ident or DNS; server name irc.test; MaxConnectionsIP 1000 (the
    default 5 would refuse the 6th client from 127.0.0.1); no join limit;
    nicks up to `nick_len`; a one-line MOTD; anyone may create channels.
    The system's /etc/ngircd is never read (IncludeDir is our own)."""

    name = "ngircd"
    binary = "ngircd"

    def __init__(self, tmpdir, strict=False, port=None, start=True,
                 nick_len=30, ping_timeout=120, pong_timeout=20, tls=False,
                 tls_cert=None, tls_key=None):
        self.nick_len = nick_len
        self.ping_timeout = ping_timeout
        self.pong_timeout = pong_timeout
        self._tls_setup(tls, tls_cert, tls_key)
        super().__init__(tmpdir, strict, port, start)

    def _write_config(self):
        include_dir = os.path.join(self.dir, "conf.d")
        os.makedirs(include_dir, exist_ok=True)
        penalty = "" if self.strict else "\tMaxPenaltyTime = 0\n"
        text = (
            "# Throw-away ngIRCd for heartsbot's integration tests.\n"
            "[Global]\n"
            "\tName = irc.test\n"
            "\tInfo = heartsbot test server\n"
            "\tAdminInfo1 = heartsbot tests\n"
            "\tAdminInfo2 = loopback\n"
            "\tAdminEMail = tests@irc.test\n"
            "\tListen = 127.0.0.1\n"
            "\tPorts = %d\n"
            "\tMotdPhrase = \"heartsbot test server\"\n"
            "[Limits]\n"
            "\tMaxConnections = 0\n"
            "\tMaxConnectionsIP = 1000\n"
            "\tMaxJoins = 0\n"
            "\tMaxNickLength = %d\n"
            "%s"
            "\tPingTimeout = %d\n"
            "\tPongTimeout = %d\n"
            "[Options]\n"
            "\tDNS = no\n"
            "\tIdent = no\n"
            "\tPAM = no\n"
            "\tRequireAuthPing = no\n"
            "\tNoticeBeforeRegistration = no\n"
            "\tIncludeDir = %s\n"
        ) % (self.port, self.nick_len, penalty, self.ping_timeout,
             self.pong_timeout, include_dir)
        if self.tls:
            # ngIRCd 26 on Debian is built with GnuTLS; it asks clients
            # for a certificate (CertFP) without requiring one.
            text += ("[SSL]\n"
                     "\tCertFile = %s\n"
                     "\tKeyFile = %s\n"
                     "\tPorts = %d\n") % (self.tls_cert, self.tls_key,
                                            self.tls_port)
        with open(self.conf_path, "w") as f:
            f.write(text)

    def _argv(self):
        return [which(self.binary), "-n", "-f", self.conf_path]


class Inspircd(_Server):
    """InspIRCd 3 on 127.0.0.1, only its core modules. One connect class
    for everyone, with the flood limits below; strict=True kills a client
    that floods ("Excess Flood"), strict=False delays it (fakelag).

    threshold: penalty (one per ordinary command) at which a client is
    killed; it drains by commandrate/1000 per second. recvq: bytes of
    unread input allowed. sendq: output queued for a slow reader before
    the client is dropped. Run as root with --runasroot (InspIRCd refuses
    root otherwise). **DEBIAN_CLASS gives the flood settings of Debian's
    /etc/inspircd/inspircd.conf instead.

    tls=True: a TLS port too (tls_port; ssl_gnutls and sslinfo: clients
    are asked for a certificate, CertFP as SHA-256), with the test CA's
    certificate for localhost/127.0.0.1 unless tls_cert/tls_key say
    otherwise. ircv3=True: cap, ircv3 (account-notify, away-notify,
    extended-join), ircv3_accounttag, ircv3_capnotify, ircv3_servertime,
    ircv3_ctctags (message-tags). services=True: all that, plus sasl,
    services_account and spanningtree linked to a private Anope
    (self.services, an Anope) that start() starts and waits for: NickServ
    answers and SASL (PLAIN, EXTERNAL) is offered once start() returns.
    modules: more of InspIRCd's modules by name ("botmode": BOT=B)."""

    name = "inspircd"
    binary = "inspircd"
    SERVICES_NAME = "services.irc.test"

    # The connect class of Debian's /etc/inspircd/inspircd.conf (InspIRCd
    # 3.15): threshold 10, commandrate and fakelag at InspIRCd's defaults
    # (1000, yes), recvq 8192, softsendq 8192, hardsendq 262144, timeout
    # 60, pingfreq 120. Not its localmax/globalmax of 3: every test client
    # comes from 127.0.0.1.
    DEBIAN_CLASS = dict(strict=False, threshold=10, commandrate=1000,
                        recvq=8192, softsendq=8192, hardsendq=262144,
                        ping_freq=120, reg_timeout=60)

    def __init__(self, tmpdir, strict=True, port=None, start=True,
                 threshold=10, commandrate=1000, recvq=8192,
                 softsendq=65536, hardsendq=1048576, nick_len=30,
                 ping_freq=120, reg_timeout=30, tls=False, tls_cert=None,
                 tls_key=None, services=False, ircv3=None, modules=()):
        self.modules = tuple(modules)
        self.threshold = threshold
        self.commandrate = commandrate
        self.recvq = recvq
        self.softsendq = softsendq
        self.hardsendq = hardsendq
        self.nick_len = nick_len
        self.ping_freq = ping_freq
        self.reg_timeout = reg_timeout
        self.ircv3 = bool(services) if ircv3 is None else bool(ircv3)
        self.link_port = None
        self.link_password = None
        self.services = None
        self._tls_setup(tls, tls_cert, tls_key)
        if services:
            if not Anope.available():
                raise ServerError("anope is not installed")
            self.link_password = "link-%d" % os.getpid()
            self.services = Anope(os.path.join(tmpdir, "anope"),
                                  self.SERVICES_NAME, self.link_password)
        super().__init__(tmpdir, strict, port, start)

    def _write_config(self):
        d = self.dir
        text = (
            "<server name=\"irc.test\" description=\"heartsbot test server\""
            " network=\"HeartsTest\" id=\"1HT\">\n"
            "<admin name=\"heartsbot tests\" nick=\"admin\""
            " email=\"tests@irc.test\">\n"
            "<path configdir=\"{d}\" datadir=\"{d}\" logdir=\"{d}\">\n"
            "<bind address=\"127.0.0.1\" port=\"{port}\" type=\"clients\">\n"
            "<connect name=\"tests\" allow=\"*\" timeout=\"{reg_timeout}\""
            " pingfreq=\"{ping}\" threshold=\"{threshold}\""
            " commandrate=\"{rate}\" fakelag=\"{fakelag}\""
            " recvq=\"{recvq}\" softsendq=\"{softsendq}\""
            " hardsendq=\"{hardsendq}\" localmax=\"1000\""
            " globalmax=\"1000\" limit=\"5000\" resolvehostnames=\"no\""
            " useident=\"no\">\n"
            "<limits maxnick=\"{nick_len}\">\n"
            "<dns server=\"127.0.0.1\" timeout=\"1\">\n"   # never asked

            "<log method=\"file\" type=\"* -USERINPUT -USEROUTPUT\""
            " level=\"default\" target=\"{d}/ircd.log\">\n"
        ).format(d=d, port=self.port, ping=self.ping_freq,
                 reg_timeout=self.reg_timeout,
                 threshold=self.threshold, rate=self.commandrate,
                 fakelag="no" if self.strict else "yes", recvq=self.recvq,
                 softsendq=self.softsendq, hardsendq=self.hardsendq,
                 nick_len=self.nick_len)
        if self.tls:
            text += (
                "<module name=\"ssl_gnutls\">\n"
                "<module name=\"sslinfo\">\n"
                "<sslprofile name=\"tests\" provider=\"gnutls\""
                " certfile=\"{cert}\" keyfile=\"{key}\" hash=\"sha256\""
                " requestclientcert=\"yes\">\n"
                "<bind address=\"127.0.0.1\" port=\"{port}\""
                " type=\"clients\" sslprofile=\"tests\">\n"
            ).format(cert=self.tls_cert, key=self.tls_key,
                     port=self.tls_port)
        if self.ircv3:
            text += "".join(
                "<module name=\"%s\">\n" % m
                for m in ("cap", "ircv3", "ircv3_accounttag",
                          "ircv3_capnotify", "ircv3_servertime",
                          "ircv3_ctctags"))
        text += "".join("<module name=\"%s\">\n" % m for m in self.modules)
        if self.services is not None:
            text += (
                "<module name=\"sasl\">\n"
                "<module name=\"services_account\">\n"
                "<module name=\"hidechans\">\n"    # Anope requires it
                "<module name=\"spanningtree\">\n"
                "<bind address=\"127.0.0.1\" port=\"{port}\""
                " type=\"servers\">\n"
                "<link name=\"{name}\" ipaddr=\"127.0.0.1\" port=\"{port}\""
                " allowmask=\"127.0.0.0/8\" sendpass=\"{pw}\""
                " recvpass=\"{pw}\" timeout=\"10\">\n"
                "<uline server=\"{name}\" silent=\"yes\">\n"
                "<sasl target=\"{name}\" requiressl=\"no\">\n"
            ).format(port=self.link_port, name=self.SERVICES_NAME,
                     pw=self.link_password)
        with open(self.conf_path, "w") as f:
            f.write(text)

    def _argv(self):
        argv = [which(self.binary), "--nofork", "--nopid",
                "--config=" + self.conf_path]
        if os.geteuid() == 0:
            argv.append("--runasroot")
        return argv

    def start(self, timeout=15.0):
        """Starts the server and, with services, Anope, and waits until
        Anope has linked (NickServ answers)."""
        if self.services is not None and self.link_port is None:
            self.link_port = free_port()
        super().start(timeout)
        if self.services is not None and not self.services.alive():
            self.services.start(self.link_port)
            self.wait_services(timeout)

    def wait_services(self, timeout=15.0):
        """Waits until NickServ answers a client on this server. The probe
        asks no faster than the connect class's penalty drains (one
        command per 1000/commandrate seconds): asking every half second
        it was killed for Excess Flood after about 15 tries, when Anope
        took over 7 s to link (a fresh clone's first test pass, other
        integration tests running beside it)."""
        deadline = time.monotonic() + timeout
        interval = 1.25 * 1000.0 / self.commandrate
        probe = Client(self.port, "probe%d" % (os.getpid() % 100000),
                       timeout=timeout)
        try:
            while True:
                mark = probe.mark()
                probe.say("NickServ", "HELP")
                m = probe.wait_for(
                    lambda m: m.command == "401" or (
                        m.command == "NOTICE" and irc_eq(m.nick,
                                                         "NickServ")),
                    since=mark, timeout=max(deadline - time.monotonic(), 1))
                if m.command == "NOTICE":
                    return
                if time.monotonic() > deadline or not self.services.alive():
                    raise ServerError(
                        "Anope did not link to InspIRCd; Anope's log:\n%s"
                        "\nInspIRCd's log:\n%s"
                        % (self.services.log_tail(), self.log_tail()))
                time.sleep(interval)
        finally:
            probe.quit()

    def stop(self, timeout=10.0):
        if self.services is not None:
            self.services.stop(timeout)
        return super().stop(timeout)

    def kill(self):
        if self.services is not None:
            self.services.kill()
        super().kill()

    def log(self):
        text = super().log()
        try:
            with open(os.path.join(self.dir, "ircd.log"), encoding="utf-8",
                      errors="replace") as f:
                text += f.read()
        except OSError:
            pass
        return text


class Anope:
    """Anope 2.0 services (Debian package anope) for an Inspircd(services=
    True), which makes and starts it: `anope --nofork` with its config,
    database and logs in its own directory (the system's /etc/anope and
    /var/lib/anope are never used), linked over the inspircd3 protocol to
    127.0.0.1:link_port, retrying every second while the server is away.

    NickServ registers the nick one is using at once (no e-mail, no
    confirmation, no waiting time; REGISTER password [email]), does not
    take nicks back from people who are not logged in (no killprotect),
    keeps certificate fingerprints (ns_cert: CERT ADD), and answers SASL
    PLAIN and EXTERNAL (m_sasl)."""

    name = "anope"
    binary = "anope"

    def __init__(self, directory, server_name, password):
        self.dir = os.fspath(directory)
        self.server_name = server_name
        self.password = password
        self.link_port = None
        self.proc = None
        self.conf_dir = os.path.join(self.dir, "conf")
        self.db_dir = os.path.join(self.dir, "data")
        self.log_dir = os.path.join(self.dir, "logs")
        for path in (self.conf_dir, self.db_dir, self.log_dir):
            os.makedirs(path, exist_ok=True)
        self.log_path = os.path.join(self.dir, "anope.log")
        self.user = self._unprivileged_user()

    def _unprivileged_user(self):
        """As root, Anope warns and sleeps 3 s before it starts: run it as
        Debian's `irc` user instead (as the package's own service does),
        its directory made theirs, the directories above it made
        traversable (not readable) by others where they were not. None
        (run as we are) when we are not root or there is no such user."""
        if os.geteuid() != 0:
            return None
        try:
            import pwd
            entry = pwd.getpwnam("irc")
        except (ImportError, KeyError):
            return None
        user = (entry.pw_uid, entry.pw_gid)
        for root, dirs, files in os.walk(self.dir):
            for name in [root] + [os.path.join(root, f) for f in files]:
                os.chown(name, *user)
        parent = os.path.dirname(os.path.abspath(self.dir))
        while parent not in ("/", ""):
            mode = os.stat(parent).st_mode
            if not mode & stat.S_IXOTH:
                os.chmod(parent, stat.S_IMODE(mode) | stat.S_IXOTH)
            parent = os.path.dirname(parent)
        return user

    @classmethod
    def available(cls):
        return which(cls.binary) is not None

    def _write_config(self):
        motd = os.path.join(self.conf_dir, "services.motd")
        with open(motd, "w") as f:
            f.write("heartsbot test services\n")
        text = (
            "uplink {{ host = \"127.0.0.1\"; ipv6 = no; ssl = no;"
            " port = {port}; password = \"{pw}\"; }}\n"
            "serverinfo {{ name = \"{name}\"; description = \"test services\";"
            " id = \"7AN\"; pid = \"{d}/anope.pid\"; motd = \"{motd}\"; }}\n"
            "module {{ name = \"inspircd3\"; use_server_side_mlock = yes;"
            " use_server_side_topiclock = yes; }}\n"
            "networkinfo {{ networkname = \"HeartsTest\"; nicklen = 30;"
            " userlen = 10; hostlen = 64; chanlen = 32; modelistsize = 100;"
            " vhost_chars = \"abcdefghijklmnopqrstuvwxyz0123456789.-\";"
            " allow_undotted_vhosts = false;"
            " disallow_start_or_end = \".-\"; }}\n"
            "options {{ casemap = \"rfc1459\"; strictpasswords = no;"
            " badpasslimit = 1000; badpasstimeout = 1h; updatetimeout = 5m;"
            " expiretimeout = 30m; readtimeout = 5s; warningtimeout = 4h;"
            " timeoutcheck = 1s; retrywait = 1s;"
            " hideprivilegedcommands = yes; hideregisteredcommands = yes;"
            " }}\n"
            "mail {{ usemail = no; sendfrom = \"services@irc.test\"; }}\n"
            "log {{ target = \"services.log\"; logage = 1; admin = \"*\";"
            " override = \"*\"; commands = \"*\"; servers = \"*\";"
            " users = \"connect disconnect nick\"; other = \"*\";"
            " rawio = no; debug = no; }}\n"
            "module {{ name = \"db_flatfile\"; database = \"anope.db\";"
            " keepbackups = 0; fork = no; }}\n"
            "module {{ name = \"enc_sha256\" }}\n"
            "service {{ nick = \"NickServ\"; user = \"services\";"
            " host = \"{name}\"; gecos = \"NickServ\"; }}\n"
            "module {{ name = \"nickserv\"; client = \"NickServ\";"
            " forceemail = no; confirmemailchanges = no;"
            " defaults = \"ns_private hide_email hide_mask\";"
            " regdelay = 0s; expire = 21d; secureadmins = yes;"
            " modeonid = yes; hidenetsplitquit = no; killquick = 20s;"
            " kill = 60s; enforceruser = \"enforcer\";"
            " enforcerhost = \"services.irc.test\"; releasetimeout = 1m;"
            " guestnickprefix = \"Guest\"; nonicknameownership = no;"
            " passlen = 32; }}\n"
            "command {{ service = \"NickServ\"; name = \"HELP\";"
            " command = \"generic/help\"; }}\n"
            "module {{ name = \"help\" }}\n"
            "module {{ name = \"ns_register\"; registration = \"none\";"
            " resenddelay = 90s; }}\n"
            "module {{ name = \"ns_identify\"; maxlogins = 10; }}\n"
            "module {{ name = \"ns_logout\" }}\n"
            "module {{ name = \"ns_cert\"; max = 5; }}\n"
            "module {{ name = \"ns_info\" }}\n"
            "module {{ name = \"ns_group\"; maxaliases = 16;"
            " nogroupchange = yes; }}\n"
            "module {{ name = \"m_sasl\" }}\n"
        ).format(port=self.link_port, pw=self.password,
                 name=self.server_name, d=self.dir, motd=motd)
        for name, cmd in (("REGISTER", "register"), ("IDENTIFY", "identify"),
                          ("ID", "identify"), ("LOGOUT", "logout"),
                          ("CERT", "cert"), ("INFO", "info"),
                          ("GROUP", "group"), ("GLIST", "glist"),
                          ("UNGROUP", "ungroup")):
            text += ("command { service = \"NickServ\"; name = \"%s\";"
                     " command = \"nickserv/%s\"; }\n" % (name, cmd))
        with open(os.path.join(self.conf_dir, "services.conf"), "w") as f:
            f.write(text)
        if self.user is not None:
            for name in ("services.conf", "services.motd"):
                os.chown(os.path.join(self.conf_dir, name), *self.user)

    def start(self, link_port):
        """Starts Anope, which connects to 127.0.0.1:link_port (and keeps
        trying once a second)."""
        if self.alive():
            return
        self.link_port = link_port
        self._write_config()
        with open(self.log_path, "ab") as log:
            log.write(("--- start, uplink port %d\n" % link_port).encode())
        self.proc = _spawn(
            [which(self.binary), "--nofork", "--confdir=" + self.conf_dir,
             "--dbdir=" + self.db_dir, "--logdir=" + self.log_dir,
             "--modulesdir=/usr/lib/anope",
             "--localedir=/usr/share/anope/locale", "-d"],
            self.log_path, signal.SIGKILL, cwd=self.dir, user=self.user)
        _register(self)

    def stop(self, timeout=10.0):
        rc = _terminate(self.proc, timeout)
        _unregister(self)
        return rc

    def kill(self):
        self._kill()
        _unregister(self)

    def _kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def log(self):
        text = ""
        for path in [self.log_path] + sorted(
                os.path.join(self.log_dir, n)
                for n in os.listdir(self.log_dir)):
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    text += f.read()
            except OSError:
                pass
        return text

    def log_tail(self, lines=30):
        return "\n".join(self.log().splitlines()[-lines:])


# ----------------------------------------------------------------------
# IRC lines.

_FORMAT_RE = re.compile(
    r"\x03(?:\d{1,2}(?:,\d{1,2})?)?"            # colour
    r"|\x04(?:[0-9a-fA-F]{6}(?:,[0-9a-fA-F]{6})?)?"  # hex colour
    r"|[\x02\x0f\x11\x16\x1d\x1e\x1f]")           # bold, reset, ...


def strip_formatting(text):
    """Text without IRC formatting: \\x02 bold, \\x03NN[,NN] colour, \\x0F
    reset, \\x16 reverse, \\x1D italic, \\x1F underline (and \\x04, \\x11,
    \\x1E)."""
    return _FORMAT_RE.sub("", text)


def irc_lower(s):
    """Lower case under RFC 1459 casemapping ([]\\~ are upper case of
    {}|^), which both servers announce."""
    return s.lower().translate(str.maketrans("[]\\~", "{}|^"))


def irc_eq(a, b):
    return irc_lower(a) == irc_lower(b)


@dataclasses.dataclass
class Message:
    """One line received. `text` is the last parameter without formatting
    (the message of a PRIVMSG); `raw` and `raw_text` keep the codes."""

    seq: int
    time: float            # time.monotonic() when read
    raw: str
    tags: dict
    prefix: str
    command: str
    params: list

    @property
    def nick(self):
        return self.prefix.split("!", 1)[0] if self.prefix else ""

    @property
    def userhost(self):
        return self.prefix.split("!", 1)[1] if "!" in self.prefix else ""

    @property
    def target(self):
        return self.params[0] if self.params else ""

    @property
    def account(self):
        """The account tag (IRCv3 account-tag), or None."""
        return self.tags.get("account")

    @property
    def raw_text(self):
        return self.params[-1] if self.params else ""

    @property
    def text(self):
        return strip_formatting(self.raw_text)

    @property
    def plain(self):
        return strip_formatting(self.raw)

    def __str__(self):
        return self.raw


def parse_line(line, seq=0, when=None):
    """Parses one IRC line (without CR LF) into a Message."""
    rest = line
    tags = {}
    if rest.startswith("@"):
        tagstr, _, rest = rest[1:].partition(" ")
        for item in tagstr.split(";"):
            key, _, value = item.partition("=")
            if key:
                tags[key] = value
    rest = rest.lstrip(" ")
    prefix = ""
    if rest.startswith(":"):
        prefix, _, rest = rest[1:].partition(" ")
    rest = rest.lstrip(" ")
    if rest.startswith(":"):
        params = [rest[1:]]
        command = ""
    else:
        head, sep, trailing = rest.partition(" :")
        params = head.split()
        if sep:
            params.append(trailing)
        command = params.pop(0).upper() if params else ""
    return Message(seq, time.monotonic() if when is None else when, line,
                   tags, prefix, command, params)


class WaitTimeout(AssertionError):
    """What wait_for raises: an assertion failure, with the last lines the
    client received, so a failing test says what it saw instead."""


# ----------------------------------------------------------------------
# The scripted client.

# The IRCv3 capabilities a Client(caps=True) asks for, where offered.
CLIENT_CAPS = ("account-tag", "account-notify", "extended-join",
               "message-tags", "server-time", "cap-notify")
# The numerics that end a SASL exchange (IRCv3 sasl-3.1): 902 nick
# locked, 903 success, 904 failed, 905 too long, 906 aborted, 907 done
# already. (908, the mechanisms list, comes before a 904.)
SASL_END = ("902", "903", "904", "905", "906", "907")


class Client:
    """An IRC client on a raw socket, for scripting a person.

    Client(port, nick) connects to 127.0.0.1:port, sends NICK and USER and
    waits for the end of the MOTD. A reader thread records every line as a
    Message (self.messages()) and answers PING. Lines are sent at once:
    pacing, if a test wants it, is the test's business.

    tls=True: TLS (Python's ssl module), the server's certificate checked
    against `cafile` (the system's store if None) and the name
    `server_hostname` (default: host), unless verify=False; `certfile` and
    `keyfile`: a client certificate (CertFP). caps=True (or a list): CAP
    LS 302 first and REQ of CLIENT_CAPS (or the list) where offered; the
    acknowledged ones are in self.caps, the offered in self.offered_caps.
    sasl=("PLAIN", account, password) or ("EXTERNAL",): SASL after the CAP
    REQ (which then asks for sasl too); the numeric that ended it is
    self.sasl_reply (903 success, 904 failure ...: registration goes on
    either way), the account from 900 in self.account. source="127.0.0.2"
    connects from that loopback address: the server shows another host."""

    MAX_LINE = 64 * 1024

    def __init__(self, port, nick, host=HOST, user=None, realname=None,
                 register=True, timeout=10.0, tls=False, cafile=None,
                 certfile=None, keyfile=None, server_hostname=None,
                 verify=True, caps=False, sasl=None, password=None,
                 source=None):
        self.port = port
        self.host = host
        self._nick = nick
        self.user = user or re.sub(r"[^A-Za-z0-9]", "", nick)[:10] or "u"
        self.realname = realname or "test client " + nick
        self.password = password
        self.tls = bool(tls)
        if caps is True:
            caps = CLIENT_CAPS
        self.want_caps = list(caps or ())
        self.sasl = tuple(sasl) if sasl else None
        self.caps = set()
        self.offered_caps = {}
        self.sasl_reply = None
        self.account = None
        self.sent = []               # (time, line)
        self.isupport = {}
        self.closed = False
        self.closed_at = None
        self._msgs = []
        self._cond = threading.Condition()
        # sends; with TLS the reader takes it too, as one SSL object must
        # not read and write in two threads at once
        self._send_lock = threading.Lock()
        # source: the loopback address to connect from (127.0.0.2 ...), so
        # that the server shows another host than 127.0.0.1
        sock = socket.create_connection(
            (host, port), timeout=timeout,
            source_address=(source, 0) if source else None)
        if self.tls:
            try:
                sock = self._wrap(sock, cafile, certfile, keyfile,
                                  server_hostname or host, verify)
            except BaseException:
                sock.close()
                raise
        self.sock = sock
        self.sock.settimeout(None)
        _register(self)
        self._reader = threading.Thread(target=self._read_loop,
                                        name="irc-" + nick, daemon=True)
        self._reader.start()
        if register:
            try:
                self.register(timeout)
            except BaseException:
                self.close()
                raise

    @staticmethod
    def _wrap(sock, cafile, certfile, keyfile, hostname, verify):
        """The TLS handshake (raises ssl.SSLCertVerificationError and the
        like when the server's certificate is refused)."""
        ctx = ssl.create_default_context(cafile=cafile)
        if not verify:
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        if certfile:
            ctx.load_cert_chain(certfile, keyfile)
        return ctx.wrap_socket(sock, server_hostname=hostname)

    # -- connection

    def register(self, timeout=10.0):
        mark = self.mark()
        negotiate = bool(self.want_caps or self.sasl)
        lines = ["CAP LS 302"] if negotiate else []
        if self.password:
            lines.append("PASS " + self.password)
        lines += ["NICK " + self._nick,
                  "USER %s 0 * :%s" % (self.user, self.realname)]
        self.send_lines(lines)
        if negotiate:
            self._negotiate(mark, timeout)
        m = self.wait_for(command=("376", "422", "433", "432", "ERROR"),
                          timeout=timeout, since=mark)
        if m.command in ("433", "432", "ERROR"):
            raise WaitTimeout("%s could not register: %s"
                              % (self._nick, m.raw))
        for m in self.messages(command="005"):
            for token in m.params[1:-1]:
                key, _, value = token.partition("=")
                self.isupport[key.upper()] = value
        return m

    def _cap_reply(self, subs, since, timeout):
        return self.wait_for(
            lambda m: (m.command == "CAP" and len(m.params) >= 3
                       and m.params[1].upper() in subs),
            since=since, timeout=timeout)

    def _negotiate(self, mark, timeout):
        """CAP LS (all its lines), REQ, SASL, CAP END. A server without CAP
        (421, or a welcome at once) has nothing to negotiate."""
        since = mark
        while True:
            m = self.wait_for(
                lambda m: m.command in ("421", "001") or (
                    m.command == "CAP" and len(m.params) >= 3
                    and m.params[1].upper() == "LS"),
                since=since, timeout=timeout)
            if m.command != "CAP":
                return
            since = m.seq + 1
            for token in m.params[-1].split():
                key, _, value = token.partition("=")
                self.offered_caps[key] = value
            if not (len(m.params) >= 4 and m.params[2] == "*"):
                break
        want = [c for c in self.want_caps if c in self.offered_caps]
        if self.sasl and "sasl" in self.offered_caps:
            want.append("sasl")
        if want:
            self.request_caps(want, timeout)
        if self.sasl and "sasl" in self.caps:
            self.sasl_reply = self.authenticate(*self.sasl, timeout=timeout)
        self.send_raw("CAP END")

    def request_caps(self, caps, timeout=10.0):
        """CAP REQ; returns the ACK or NAK (self.caps follows the ACK)."""
        mark = self.mark()
        self.send_raw("CAP REQ :" + " ".join(caps))
        m = self._cap_reply(("ACK", "NAK"), mark, timeout)
        if m.params[1].upper() == "ACK":
            for cap in m.params[-1].split():
                if cap.startswith("-"):
                    self.caps.discard(cap[1:])
                else:
                    self.caps.add(cap)
        return m

    def authenticate(self, mechanism, account=None, password=None,
                     timeout=10.0):
        """One SASL exchange (PLAIN with account and password, or
        EXTERNAL): returns the numeric that ends it (SASL_END)."""
        mechanism = mechanism.upper()
        mark = self.mark()
        self.send_raw("AUTHENTICATE " + mechanism)
        m = self.wait_for(lambda m: m.command == "AUTHENTICATE"
                          or m.command in SASL_END, since=mark,
                          timeout=timeout)
        if m.command == "AUTHENTICATE":
            if mechanism == "PLAIN":
                raw = "%s\0%s\0%s" % (account, account, password)
                payload = base64.b64encode(raw.encode()).decode()
            else:
                payload = ""
            # 400-byte chunks; an empty or exactly-400 end is "+"
            chunks = [payload[i:i + 400]
                      for i in range(0, len(payload), 400)]
            if not chunks or len(chunks[-1]) == 400:
                chunks.append("+")
            self.send_lines(["AUTHENTICATE " + c for c in chunks])
            m = self.wait_for(command=SASL_END, since=mark, timeout=timeout)
        logged_in = self.find(command="900", since=mark)
        if m.command == "903" and logged_in and len(logged_in.params) > 2:
            self.account = logged_in.params[2]
        return m

    def _recv(self):
        """The next bytes from the server (b"" at the end)."""
        if not self.tls:
            return self.sock.recv(65536)
        while True:
            with self._send_lock:
                buffered = self.sock.pending() > 0
            if not buffered:
                ready, _, _ = select.select([self.sock], [], [], 0.5)
                if not ready:
                    continue
            with self._send_lock:
                self.sock.setblocking(False)
                try:
                    return self.sock.recv(65536)
                except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
                    pass
                finally:
                    self.sock.setblocking(True)

    def _read_loop(self):
        buf = b""
        try:
            while True:
                data = self._recv()
                if not data:
                    break
                buf += data
                while True:
                    nl = buf.find(b"\n")
                    if nl < 0:
                        break
                    raw, buf = buf[:nl], buf[nl + 1:]
                    self._got(raw.rstrip(b"\r").decode("utf-8", "replace"))
                if len(buf) > self.MAX_LINE:
                    self._got(buf.decode("utf-8", "replace"))
                    buf = b""
        except (OSError, ValueError):   # ValueError: closed under select
            pass
        with self._cond:
            self.closed = True
            self.closed_at = time.monotonic()
            self._cond.notify_all()

    def _got(self, line):
        if not line:
            return
        with self._cond:
            m = parse_line(line, seq=len(self._msgs))
            self._msgs.append(m)
            self._cond.notify_all()
        if m.command == "PING":
            try:
                self.send_raw("PONG :" + (m.params[-1] if m.params else ""))
            except OSError:
                pass
        elif m.command == "NICK" and irc_eq(m.nick, self._nick) and m.params:
            self._nick = m.params[-1]

    def send_raw(self, line):
        """Sends one line (CR LF is added; CR or LF inside is refused)."""
        self.send_lines([line])

    def send_lines(self, lines):
        """Sends several lines in a single write: a burst."""
        data = b""
        for line in lines:
            if "\r" in line or "\n" in line:
                raise ValueError("line break inside an IRC line: %r" % line)
            data += line.encode("utf-8") + b"\r\n"
        with self._send_lock:
            now = time.monotonic()
            self.sock.sendall(data)
            self.sent.extend((now, line) for line in lines)

    # -- commands

    def join(self, channel, wait=True, timeout=10.0):
        """Joins and, with wait, returns once the names list has come."""
        mark = self.mark()
        self.send_raw("JOIN " + channel)
        if not wait:
            return None
        self.wait_for(lambda m: (m.command in ("403", "405", "471", "473",
                                               "474", "475")
                                 or (m.command == "366" and len(m.params) > 1
                                     and irc_eq(m.params[1], channel))),
                      timeout=timeout, since=mark)
        return self.wait_for(command="JOIN", frm=self._nick, to=channel,
                             since=mark, timeout=0.1)

    def part(self, channel, reason=None, wait=True, timeout=10.0):
        mark = self.mark()
        self.send_raw("PART %s%s" % (channel, " :" + reason if reason else ""))
        if wait:
            return self.wait_for(command="PART", frm=self._nick, to=channel,
                                 since=mark, timeout=timeout)
        return None

    def say(self, target, text):
        """PRIVMSG target :text"""
        self.send_raw("PRIVMSG %s :%s" % (target, text))

    def notice(self, target, text):
        self.send_raw("NOTICE %s :%s" % (target, text))

    def nick(self, new=None, wait=True, timeout=10.0):
        """nick() is the current nick. nick(new) sends NICK new and, with
        wait, returns once the server confirmed it, or raises WaitTimeout
        if it was refused (nick in use, erroneous)."""
        if new is None:
            return self._nick
        mark = self.mark()
        old = self._nick
        self.send_raw("NICK " + new)
        if not wait:
            return None
        m = self.wait_for(lambda m: m.command in ("432", "433", "436", "437")
                          or (m.command == "NICK" and irc_eq(m.nick, old)),
                          since=mark, timeout=timeout)
        if m.command != "NICK":
            raise WaitTimeout("NICK %s refused: %s" % (new, m.raw))
        return m

    # -- services (Anope's NickServ on an Inspircd(services=True))

    def services(self, text, service="NickServ", reply=None, timeout=10.0):
        """Sends `text` to a service and returns its first NOTICE (or
        PRIVMSG) whose text matches the regex `reply` (any, if None)."""
        mark = self.mark()
        self.say(service, text)
        return self.wait_privmsg(service, reply, timeout=timeout, since=mark)

    def ns_register(self, password, email=None, timeout=10.0):
        """Registers the current nick as an account (logged in at once:
        the test services need no e-mail confirmation)."""
        email = email or "%s@irc.test" % re.sub(r"[^A-Za-z0-9]", "",
                                               self._nick)
        m = self.services("REGISTER %s %s" % (password, email),
                          reply=r"registered|may not|already|must",
                          timeout=timeout)
        if not re.search(r"\bregistered\b", m.text) or re.search(
                r"isn't|already", m.text):
            raise WaitTimeout("%s: REGISTER refused: %s" % (self._nick, m.raw))
        return m

    def ns_identify(self, password, account=None, timeout=10.0):
        """Logs in to `account` (default: the nick's) with a password."""
        text = "IDENTIFY %s%s" % (account + " " if account else "", password)
        m = self.services(text, reply=r"accepted|incorrect|isn't|denied|"
                          r"already", timeout=timeout)
        if not re.search(r"accepted|already", m.text):
            raise WaitTimeout("%s: IDENTIFY refused: %s" % (self._nick, m.raw))
        return m

    def ns_logout(self, timeout=10.0):
        """Logs out of the account (services tell the server: ACCOUNT * to
        account-notify clients)."""
        return self.services("LOGOUT", reply=r"logged out", timeout=timeout)

    def ns_cert_add(self, timeout=10.0):
        """Adds the certificate fingerprint this TLS connection presented
        to the account, for SASL EXTERNAL."""
        m = self.services("CERT ADD", reply=r"added to|already|isn't|not",
                          timeout=timeout)
        if not re.search(r"added to|already present", m.text):
            raise WaitTimeout("%s: CERT ADD refused: %s" % (self._nick, m.raw))
        return m

    def whois(self, nick, timeout=10.0):
        """WHOIS nick: the numerics up to 318 (a list of Messages)."""
        mark = self.mark()
        self.send_raw("WHOIS " + nick)
        self.wait_for(command=("318", "401"), since=mark, timeout=timeout)
        return [m for m in self.messages(mark)
                if re.fullmatch(r"\d{3}", m.command)]

    def whois_account(self, nick, timeout=10.0):
        """The account WHOIS shows for nick (330), or None."""
        for m in self.whois(nick, timeout):
            if m.command == "330" and len(m.params) > 2:
                return m.params[2]
        return None

    def quit(self, reason="bye", timeout=5.0):
        """QUIT, wait for the server to close, close the socket."""
        try:
            self.send_raw("QUIT :" + reason)
        except OSError:
            pass
        self.wait_closed(timeout)
        self.close()

    def close(self):
        """Drops the connection without a QUIT (again: no-op)."""
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        if self._reader is not threading.current_thread():
            self._reader.join(5.0)
        _unregister(self)

    def _kill(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def wait_closed(self, timeout=10.0):
        """True once the server has closed the connection."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self.closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    # -- what arrived

    def mark(self):
        """A position in the received lines: pass it as `since`."""
        with self._cond:
            return len(self._msgs)

    def messages(self, since=0, command=None):
        """Lines received from position `since`, optionally one command (or
        a tuple of commands) only."""
        with self._cond:
            msgs = self._msgs[since:]
        if command is not None:
            cmds = (command,) if isinstance(command, str) else command
            msgs = [m for m in msgs if m.command in cmds]
        return msgs

    def privmsgs_from(self, nick, to=None, since=0, notices=True):
        """PRIVMSGs (and NOTICEs unless notices=False: the bot may use
        either for private text) from `nick`, to `to` if given (a channel,
        or our own nick for private ones)."""
        kinds = ("PRIVMSG", "NOTICE") if notices else ("PRIVMSG",)
        return [m for m in self.messages(since, kinds)
                if irc_eq(m.nick, nick)
                and (to is None or irc_eq(m.target, to))]

    def texts_from(self, nick, to=None, since=0):
        """The texts (formatting stripped) of privmsgs_from."""
        return [m.text for m in self.privmsgs_from(nick, to, since)]

    def wait_for(self, match=None, timeout=10.0, since=0, command=None,
                 frm=None, to=None):
        """The first Message from position `since` on that satisfies every
        filter given, waiting up to `timeout` seconds for it:
        match: a callable(Message) -> bool, or a regular expression (str or
        compiled) searched in the line without formatting (Message.plain);
        command: a command or numeric, or a tuple of them; frm: the sender's
        nick; to: the first parameter (channel or nick). Raises WaitTimeout
        (an AssertionError) on timeout or when the connection closed."""
        checks = []
        if command is not None:
            cmds = (command,) if isinstance(command, str) else tuple(command)
            checks.append(lambda m: m.command in cmds)
        if frm is not None:
            checks.append(lambda m: irc_eq(m.nick, frm))
        if to is not None:
            checks.append(lambda m: bool(m.params) and irc_eq(m.params[0], to))
        if match is not None:
            if callable(match):
                checks.append(match)
            else:
                rx = re.compile(match) if isinstance(match, str) else match
                checks.append(lambda m: rx.search(m.plain) is not None)

        def ok(m):
            return all(check(m) for check in checks)

        deadline = time.monotonic() + timeout
        with self._cond:
            i = since
            while True:
                while i < len(self._msgs):
                    m = self._msgs[i]
                    i += 1
                    if ok(m):
                        return m
                if self.closed:
                    why = "connection closed"
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    why = "timeout after %.1f s" % timeout
                    break
                self._cond.wait(left)
        raise WaitTimeout("%s: no line matching %s (%s); last lines:\n%s"
                          % (self._nick, self._describe(match, command, frm,
                                                       to), why,
                             self.tail()))

    def find(self, match=None, since=0, command=None, frm=None, to=None):
        """Like wait_for, without waiting: the first Message from `since`
        that passes every filter, or None."""
        try:
            return self.wait_for(match, 0, since, command, frm, to)
        except WaitTimeout:
            return None

    def wait_privmsg(self, frm, match=None, to=None, timeout=10.0, since=0):
        """The first PRIVMSG or NOTICE from `frm` (to `to`) whose text
        (formatting stripped) matches the regex `match`."""
        rx = None
        if match is not None:
            rx = re.compile(match) if isinstance(match, str) else match
        return self.wait_for(
            lambda m: rx is None or rx.search(m.text) is not None,
            command=("PRIVMSG", "NOTICE"), frm=frm, to=to, timeout=timeout,
            since=since)

    def wait_join(self, nick, channel, timeout=10.0, since=0):
        """Waits until `nick` is seen joining `channel`."""
        return self.wait_for(command="JOIN", frm=nick, to=channel,
                             timeout=timeout, since=since)

    def wait_member(self, nick, channel, timeout=10.0):
        """Waits until `nick` is in `channel`, which we are in: NAMES once
        (for someone who joined before we did), else its JOIN, which the
        server sends us as it comes. Asking NAMES every 0.2 s until it came
        would be five commands a second, which strict InspIRCd quits for
        Excess Flood within three seconds."""
        deadline = time.monotonic() + timeout
        mark = self.mark()
        if any(irc_eq(n, nick) for n in self.names(channel, timeout)):
            return
        try:
            self.wait_for(command="JOIN", frm=nick, to=channel, since=mark,
                          timeout=max(deadline - time.monotonic(), 0.1))
        except WaitTimeout:
            raise WaitTimeout("%s is not in %s after %.1f s"
                              % (nick, channel, timeout))

    def names(self, channel, timeout=10.0):
        """The nicks in `channel` (NAMES), without their @+ prefixes."""
        mark = self.mark()
        self.send_raw("NAMES " + channel)
        self.wait_for(command="366", timeout=timeout, since=mark)
        nicks = set()
        for m in self.messages(mark, "353"):
            if len(m.params) >= 3 and irc_eq(m.params[-2], channel):
                nicks.update(n.lstrip("~&@%+") for n in m.params[-1].split())
        return nicks

    def tail(self, lines=15):
        with self._cond:
            msgs = self._msgs[-lines:]
        return "\n".join("  " + m.raw for m in msgs) or "  (nothing)"

    @staticmethod
    def _describe(match, command, frm, to):
        parts = []
        if match is not None:
            parts.append(getattr(match, "pattern", None)
                         or getattr(match, "__name__", repr(match)))
        for label, value in (("command", command), ("from", frm), ("to", to)):
            if value is not None:
                parts.append("%s=%s" % (label, value))
        return ", ".join(parts) or "anything"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        return "<Client %s port=%s closed=%s>" % (self._nick, self.port,
                                                  self.closed)


# ----------------------------------------------------------------------
# The bot.

def example_config():
    """config.example.toml as a dict: the defaults a test starts from."""
    with open(os.path.join(REPO, "config.example.toml"), "rb") as f:
        return tomllib.load(f)


def example_matrix():
    """The [[matrix]] table of docs/examples/matrix.toml (every key of it
    set), as a dict: the defaults of a Matrix test's account."""
    with open(os.path.join(REPO, "docs", "examples", "matrix.toml"),
              "rb") as f:
        return dict(tomllib.load(f)["matrix"][0])


# [bot] settings that turn the bot's answer limits (and its damping of a
# repeated channel !status) off, for tests that send many commands on
# purpose (every refusal, a burst) and are not about the limits
# (test_stall.py is).
NO_ANSWER_LIMITS = {"reply_interval": 0, "repeat_quiet": 0,
                    "chatter_interval": 0, "channel_repeat": 0}


def bot_config(port, data_dir, channels=("#hearts",), nick="heartsbot",
               game=None, bot=None, irc=None):
    """A bot config dict: config.example.toml with [bot] data_dir set, log
    level debug, `game` overriding [game] keys (the short timeouts a test
    wants), `bot` overriding [bot], and one [[irc]] network on
    127.0.0.1:port joining `channels` (`irc` overrides its keys)."""
    cfg = example_config()
    cfg["bot"]["data_dir"] = os.fspath(data_dir)
    cfg["bot"]["log_level"] = "debug"
    cfg["bot"].update(bot or {})
    cfg["game"].update(game or {})
    net = dict(cfg["irc"][0])
    net.update(name="local", host=HOST, port=int(port), nick=nick,
               channels=list(channels))
    net.update(irc or {})
    cfg["irc"] = [net]
    # the example's [[matrix]] account is not for IRC tests
    cfg.pop("matrix", None)
    return cfg


def _toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError("no TOML for %r" % (v,))


def to_toml(cfg):
    """Renders a dict as the TOML subset the bot reads: [tables],
    [[arrays of tables]], strings, integers, booleans, arrays of strings."""
    out = []
    def is_table(v):
        return isinstance(v, dict) or (
            isinstance(v, list) and any(isinstance(x, dict) for x in v))

    for k, v in cfg.items():
        if not is_table(v):
            out.append("%s = %s" % (k, _toml_value(v)))
    for k, v in cfg.items():
        if isinstance(v, dict):
            out.append("\n[%s]" % k)
            out.extend("%s = %s" % (kk, _toml_value(vv))
                       for kk, vv in v.items())
        elif isinstance(v, list) and any(isinstance(x, dict) for x in v):
            for table in v:
                out.append("\n[[%s]]" % k)
                out.extend("%s = %s" % (kk, _toml_value(vv))
                           for kk, vv in table.items())
    return "\n".join(out).lstrip("\n") + "\n"


def bot_binary():
    """$HEARTSBOT, else build/heartsbot; relative paths are taken from the
    repository root. None if build/heartsbot is not there; an error if
    $HEARTSBOT names something that is not an executable (CTest sets it,
    and a missing bot there is a failure, not a skip)."""
    given = os.environ.get("HEARTSBOT")
    path = given or os.path.join("build", "heartsbot")
    if not os.path.isabs(path):
        path = os.path.join(REPO, path)
    if os.access(path, os.X_OK):
        return path
    if given:
        raise FileNotFoundError("HEARTSBOT=%s is not an executable" % given)
    return None


class Bot:
    """The real bot: Bot(tmpdir, config) where config is a path to a config
    file or a dict (see bot_config) written to tmpdir/NAME.toml. Runs
    `$HEARTSBOT --config FILE` with stdout and stderr in tmpdir/NAME.log."""

    def __init__(self, tmpdir, config, binary=None, name="heartsbot",
                 env=None, start=True):
        self.dir = os.fspath(tmpdir)
        self.name = name
        self.binary = binary or bot_binary()
        if self.binary is None:
            raise unittest.SkipTest("no bot binary (set HEARTSBOT or build "
                                    "build/heartsbot)")
        if isinstance(config, dict):
            self.config = config
            self.config_path = os.path.join(self.dir, name + ".toml")
            with open(self.config_path, "w", encoding="utf-8") as f:
                f.write(to_toml(config))
        else:
            self.config_path = os.fspath(config)
            with open(self.config_path, "rb") as f:
                self.config = tomllib.load(f)
        self.log_path = os.path.join(self.dir, name + ".log")
        self.env = dict(os.environ)
        self.env.update(env or {})
        self.proc = None
        if start:
            self.start()

    def start(self):
        if self.alive():
            return
        self.proc = _spawn([self.binary, "--config", self.config_path],
                           self.log_path, signal.SIGTERM, env=self.env,
                           cwd=self.dir)
        _register(self)

    def stop(self, timeout=10.0):
        """SIGTERM, wait up to `timeout` s, then SIGKILL. Returns the exit
        code (-9 if it had to be killed, -N for death by signal N)."""
        rc = _terminate(self.proc, timeout)
        _unregister(self)
        return rc

    def signal(self, sig):
        """Sends a signal (SIGHUP: reload the config)."""
        self.proc.send_signal(sig)

    def wait(self, timeout=None):
        """The exit code once it exits by itself, or None after timeout."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def _kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def log(self):
        try:
            with open(self.log_path, encoding="utf-8",
                      errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def wait_log(self, pattern, timeout=10.0):
        """Waits until the log has a line matching the regex; returns the
        match, or raises WaitTimeout with the end of the log."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            m = rx.search(self.log())
            if m:
                return m
            if time.monotonic() >= deadline or not self.alive():
                raise WaitTimeout("bot log has no %r (alive=%s); log:\n%s"
                                  % (pattern, self.alive(),
                                     "\n".join(self.log().splitlines()[-30:])))
            time.sleep(0.05)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False


# ----------------------------------------------------------------------
# Hearts: cards as the bot writes them, scripted players, game records.
#
# Cards are kept here as the engine's canonical names ("QS", "TD"). The
# bot writes a card as rank and suit symbol ("Q♠", "10♦") and a hand
# grouped by suit ("♣ 2 [5] [J]  ♦ 3 Q"), the marked (legal) cards in
# [brackets] in plain text, in bold (\x02) on IRC with colours on.

SUIT_LETTERS = {"\u2663": "C", "\u2666": "D", "\u2665": "H", "\u2660": "S"}
SUIT_SYMBOLS = {v: k for k, v in SUIT_LETTERS.items()}
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
RANKS = "23456789TJQKA"
_RANK_WORDS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
               "A")
_CARD_RE = re.compile("(?<![0-9A-Za-z])(10|[2-9JQKA])([\u2663\u2666\u2665"
                      "\u2660])")


def card_name(rank, symbol):
    """('10', '♦') -> 'TD'."""
    return ("T" if rank == "10" else rank) + SUIT_LETTERS[symbol]


def card_text(card):
    """'TD' -> '10♦': the card as the bot writes it in plain text."""
    return ("10" if card[0] == "T" else card[0]) + SUIT_SYMBOLS[card[1]]


def card_rank(card):
    """0 for a two, 12 for an ace."""
    return RANKS.index(card[0])


def spell(card, style=0):
    """The card as a person may type it (chat.md): style 0 'TD', 1 '10d',
    2 't♦'."""
    rank, suit = card[0], card[1]
    if style % 3 == 0:
        return card
    if style % 3 == 1:
        return ("10" if rank == "T" else rank).lower() + suit.lower()
    return rank.lower() + SUIT_SYMBOLS[suit]


def cards_in(text):
    """The cards named in plain text, in order: 'alice 7♣, bob 10♥' ->
    ['7C', 'TH']."""
    return [card_name(r, s) for r, s in _CARD_RE.findall(text)]


def marked_text(raw):
    """A private IRC message as plain text with the marked cards in
    [brackets]: bold runs become brackets, then formatting goes. Plain
    text (colours off) passes unchanged."""
    return strip_formatting(re.sub("\x02([^\x02\x0f]*)\x02", r"[\1]", raw))


def parse_hand(text):
    """A hand as the bot writes it (plain, marks in brackets) -> (cards in
    the order written, the set of marked ones). Reading stops at the first
    word that is no part of a hand."""
    cards, marked, suit = [], set(), None
    for word in text.split():
        if word in SUIT_LETTERS:
            suit = SUIT_LETTERS[word]
            continue
        bare = word[1:-1] if word[:1] == "[" and word[-1:] == "]" else word
        if suit is None or bare not in _RANK_WORDS:
            break
        card = ("T" if bare == "10" else bare) + suit
        cards.append(card)
        if bare != word:
            marked.add(card)
    return cards, marked


def hand_order(card):
    """A sort key: the order of a hand as the bot writes it (clubs,
    diamonds, spades, hearts; ranks ascending)."""
    return ("CDSH".index(card[1]), RANKS.index(card[0]))


def parse_plays(text):
    """'alice 7♣, bob 10♥' -> [('alice', '7C'), ('bob', 'TH')]."""
    plays = []
    for part in text.split(", "):
        name, _, card = part.strip().rpartition(" ")
        got = cards_in(card)
        if name and len(got) == 1:
            plays.append((name, got[0]))
    return plays


@dataclasses.dataclass
class Deal:
    """'Hand N at #room. Your cards: ... | Pass K cards to NAME: ...'"""
    msg: object
    hand_no: int
    table: str
    cards: list
    pass_count: int        # 0: a hand without passing
    pass_to: str           # '' when not passing (or scatter)


@dataclasses.dataclass
class HandShown:
    """'You received ... Your hand: ...' after the pass, or the answer to
    `hand` (with '(your turn: ...)' and marks when it is our turn)."""
    msg: object
    received: list
    cards: list
    marked: set
    your_turn: bool


@dataclasses.dataclass
class Prompt:
    """'Your turn at #room, trick 4: alice 7♣. Play one of: ♣ 2 8.
    Others: ♦ 3  ♥ 5. Hearts broken, ...' (or 'Your turn at #room to lead
    trick 4.', 'Only legal: 2♣.', 'Any card:
    ♣ 2 8.' with no 'Others'). `cards` is the whole hand in a hand's
    order, `marked` the legal ones."""
    msg: object
    table: str
    trick_no: int
    trick: list            # [(name, card)] on the trick so far
    cards: list
    marked: set
    # the first prompt after the passing starts 'You received ... from
    # bob. ' when this seat leads: the cards that came, else []
    received: list = dataclasses.field(default_factory=list)

    @property
    def leading(self):
        return not self.trick

    @property
    def led_suit(self):
        return self.trick[0][1][1] if self.trick else None


@dataclasses.dataclass
class Passing:
    """'Passing Q♣ K♣ K♦ to bob; waiting for carol.': the confirmation of
    a pass (ours, or one a computer chose for us when time ran out)."""
    msg: object
    cards: list
    to: str
    waiting: list


@dataclasses.dataclass
class MoonChoice:
    """'You shot the moon! Tell me "moon subtract" ... or "moon add" ...'
    (rules with moon=choice)."""
    msg: object
    sun: bool


@dataclasses.dataclass
class Said:
    """Any other private message (a refusal, a reminder, an answer)."""
    msg: object
    text: str


_DEAL_RE = re.compile(r"^Hand (\d+) at (.+?)\. Your cards: (.*?)"
                      r"(?: \| Pass (\d+) cards(?: to (.+?):)?.*)?$")
# "You passed ... to bob. " first when the pass confirmation was taken back
# (everyone passed before it was written). Names may hold spaces (Matrix
# display names: "Ace (@carol:hearts.test)").
_PASSED = r"(?:You passed .*? to (?:the others|.+?)\. )?"
_HAND_RE = re.compile(r"^" + _PASSED + r"(?:You received (.*?)\. )?"
                      r"Your hand: (.*?)"
                      r"( \(your turn: the marked cards are playable\))?$")
_MOON_RE = re.compile(r'^You shot the (moon|sun)! Tell me "moon subtract"')
_PROMPT_RE = re.compile(r"^" + _PASSED + r"(?:You received (.*?)\. )?"
                        r"Your turn at (.+?)(?: to lead trick (\d+)"
                        r"(?:; .*?)?\.|, trick (\d+): (.*?)\.) "
                        r"(?:(?:Any card|Play one of): (.*?)|"
                        r"Only legal: (\S+))\.(?: Others: (.*?)\.)?"
                        r"(?: .*)?$")
_PASSING_RE = re.compile(r"^Passing (.*?) to (the others|.+?)"
                         r"(?:; waiting for (.*))?\.$")


def parse_private(text, msg=None):
    """One private message of the bot (plain text, marks in brackets: see
    marked_text) -> Deal, HandShown, Prompt, Passing, MoonChoice or
    Said."""
    m = _DEAL_RE.match(text)
    if m:
        cards, _ = parse_hand(m.group(3))
        return Deal(msg, int(m.group(1)), m.group(2), cards,
                    int(m.group(4) or 0), m.group(5) or "")
    m = _PROMPT_RE.match(text)
    if m:
        got = cards_in(m.group(1)) if m.group(1) else []
        legal = (parse_hand(m.group(6))[0] if m.group(6) is not None
                 else cards_in(m.group(7)))
        others = parse_hand(m.group(8))[0] if m.group(8) else []
        cards = sorted(legal + others, key=hand_order)
        if m.group(3):
            return Prompt(msg, m.group(2), int(m.group(3)), [], cards,
                          set(legal), got)
        return Prompt(msg, m.group(2), int(m.group(4)),
                      parse_plays(m.group(5)), cards, set(legal), got)
    m = _MOON_RE.match(text)
    if m:
        return MoonChoice(msg, m.group(1) == "sun")
    m = _PASSING_RE.match(text)
    if m:
        return Passing(msg, cards_in(m.group(1)), m.group(2),
                       m.group(3).split(", ") if m.group(3) else [])
    m = _HAND_RE.match(text)
    if m:
        cards, marked = parse_hand(m.group(2))
        return HandShown(msg, cards_in(m.group(1) or ""), cards, marked,
                         bool(m.group(3)))
    return Said(msg, text)


def parse_trick_line(text):
    """A channel line 'Trick 5: alice 7♣, bob K♣ - bob takes it (1 point)'
    -> (5, [('alice', '7C'), ('bob', 'KC')], 'bob'), or None. The taker is
    None for a trick set aside."""
    m = re.match(r"^Trick (\d+): (.*?)(?: - (.*))?$", text)
    if not m:
        return None
    taker = None
    if m.group(3):
        t = re.match(r"^(.+?) takes it", m.group(3))
        taker = t.group(1) if t else None
    return int(m.group(1)), parse_plays(m.group(2)), taker


def parse_final(text):
    """'Game over! ... Final: alice 3, bob 10' -> {'alice': 3, 'bob': 10},
    or None."""
    m = re.search(r"Final: (.*?)\.?$", text)
    if not m:
        return None
    totals = {}
    for part in m.group(1).split(", "):
        name, _, value = part.rpartition(" ")
        totals[name] = int(value)
    return totals


def is_channel(target):
    return target[:1] in ("#", "&", "+", "!")


class Player:
    """A scripted person at a Hearts table: a Client and what the bot told
    it privately. poll() reads the bot's new private messages, parses them
    (Deal, HandShown, Prompt, MoonChoice, Said), keeps the hand up to date
    and sets pass_due / prompt_due / moon_due for the driver (play_game).
    The passes and plays sent are in `actions`, with the time."""

    def __init__(self, client, bot="heartsbot", channel="#hearts"):
        self.client = client
        self.bot = bot
        self.channel = channel
        self.cursor = 0
        self.hand_no = 0
        self.hand = []         # held now, as far as we know
        self.deals = {}        # hand number -> cards dealt to us
        self.passed = {}       # hand number -> cards we passed
        self.received = {}     # hand number -> cards passed to us
        self.played = {}       # hand number -> cards we played, in order
        # hand number -> cards of ours the channel's trick lines show but
        # we did not send: autoplay (the last card), a computer after a
        # timeout, a card queued before our turn
        self.played_for_us = {}
        self.channel_hand = 0  # the hand the channel's lines are at
        self.events = []       # every event, in order
        self.actions = []      # (time, hand number, 'pass'/'play', cards)
        self.pass_due = None   # a Deal we have not passed for
        self.prompt_due = None  # a Prompt we have not played for
        self.moon_due = None   # a MoonChoice we have not answered

    @property
    def nick(self):
        return self.client.nick()

    def reconnect(self, client):
        """Goes on with a new connection (same person, after a network
        break): keeps the game state, reads the new client from its
        start."""
        self.client = client
        self.cursor = 0

    def is_private_from_bot(self, m):
        return (m.command in ("PRIVMSG", "NOTICE") and irc_eq(m.nick, self.bot)
                and bool(m.params) and not is_channel(m.target))

    def poll(self):
        """The events of the bot's private messages that arrived since the
        last poll."""
        new = self.client.messages(self.cursor)
        self.cursor += len(new)
        out = []
        for m in new:
            if self.is_channel_from_bot(m):
                self._channel_line(m)
                continue
            if not self.is_private_from_bot(m):
                continue
            ev = parse_private(marked_text(m.raw_text), m)
            self._update(ev)
            self.events.append(ev)
            out.append(ev)
        return out

    def is_channel_from_bot(self, m):
        return (m.command in ("PRIVMSG", "NOTICE") and irc_eq(m.nick, self.bot)
                and bool(m.params) and irc_eq(m.target, self.channel))

    def _channel_line(self, m):
        hm = re.match(r"^Hand (\d+): ", m.text)
        if hm:
            self.channel_hand = int(hm.group(1))
            return
        trick = parse_trick_line(m.text)
        if not trick:
            return
        h = self.channel_hand
        for name, card in trick[1]:
            if irc_eq(name, self.nick) and card not in self.played.get(h, ()):
                self.played_for_us.setdefault(h, []).append(card)

    def all_played(self, hand_no):
        """The cards of ours played in a hand, by us or for us."""
        return (set(self.played.get(hand_no, ()))
                | set(self.played_for_us.get(hand_no, ())))

    def _gone(self):
        return set(self.played.get(self.hand_no, ())) | set(
            self.passed.get(self.hand_no, ()))

    def _update(self, ev):
        if isinstance(ev, Deal):
            self.hand_no = ev.hand_no
            self.deals[ev.hand_no] = list(ev.cards)
            self.hand = list(ev.cards)
            self.pass_due = ev if ev.pass_count else None
            self.prompt_due = None
        elif isinstance(ev, HandShown):
            if ev.received:
                self.received[self.hand_no] = list(ev.received)
                self.pass_due = None
            gone = set(self.played.get(self.hand_no, ()))
            self.hand = [c for c in ev.cards if c not in gone]
        elif isinstance(ev, Prompt):
            if ev.received:
                self.received[self.hand_no] = list(ev.received)
            gone = set(self.played.get(self.hand_no, ()))
            self.hand = [c for c in ev.cards if c not in gone]
            self.prompt_due = ev
            self.pass_due = None
        elif isinstance(ev, MoonChoice):
            self.moon_due = ev

    def tell(self, text):
        """A private message to the bot."""
        self.client.say(self.bot, text)

    def pass_cards(self, cards, style=0):
        # the time before sending: the bot's answer may arrive at once
        self.actions.append((time.monotonic(), self.hand_no, "pass",
                             list(cards)))
        self.tell("pass " + " ".join(spell(c, style) for c in cards))
        self.passed[self.hand_no] = list(cards)
        self.hand = [c for c in self.hand if c not in cards]
        self.pass_due = None

    def play(self, card, how="play", style=0):
        """Plays a card: how='play' ("play QS" privately), 'bare' ("QS"
        privately) or 'channel' ("!play QS" in the channel)."""
        word = spell(card, style)
        self.actions.append((time.monotonic(), self.hand_no, "play", [card]))
        if how == "bare":
            self.tell(word)
        elif how == "channel":
            self.client.say(self.channel, "!play " + word)
        else:
            self.tell("play " + word)
        self.played.setdefault(self.hand_no, []).append(card)
        self.hand = [c for c in self.hand if c != card]
        self.prompt_due = None

    def moon(self, choice):
        """Answers a MoonChoice: 'add' or 'subtract'."""
        self.tell("moon " + choice)
        self.moon_due = None

    def mark(self):
        return self.client.mark()

    def wait_said(self, match, since=0, timeout=10.0):
        """The first private message of the bot from `since` whose text
        (plain, marks in brackets) matches the regex; raises WaitTimeout."""
        rx = re.compile(match)
        return self.client.wait_for(
            lambda m: self.is_private_from_bot(m)
            and rx.search(marked_text(m.raw_text)) is not None,
            since=since, timeout=timeout)

    def said(self, since=0):
        """The texts of the bot's private messages from `since`."""
        return [marked_text(m.raw_text) for m in self.client.messages(since)
                if self.is_private_from_bot(m)]


def start_table(clients, rules="standard", channel="#hearts",
                bot="heartsbot"):
    """The first client opens a table at `channel` (all of them in it
    already) with `rules`, the others sit down one by one, and the first
    starts the game: returns (the mark before !start, the "The game
    begins: " message)."""
    first = clients[0]
    first.wait_member(bot, channel, timeout=15)
    first.say(channel, "!hearts " + rules)
    first.wait_privmsg(bot, r"opens a Hearts table", to=channel)
    for c in clients[1:]:
        mark = first.mark()
        c.say(channel, "!join")
        first.wait_privmsg(bot, r"^%s sits down" % re.escape(c.nick()),
                           to=channel, since=mark)
    start = first.mark()
    first.say(channel, "!start")
    begins = first.wait_privmsg(bot, r"^The game begins: ", to=channel,
                                since=start)
    return start, begins


# IRC flood settings for tests that only need the bot quick, not paced
FAST_IRC = {"flood_burst": 100, "flood_interval_ms": 100}


def records_bot_config(port, data, channels=("#hearts",)):
    """A bot config for tests of results and leaderboards: quick on IRC,
    no answer limits, no colours, no pause between hands."""
    return bot_config(port, data, channels=channels,
                      bot=dict(NO_ANSWER_LIMITS, colors=False), irc=FAST_IRC,
                      game={"next_hand_delay": 0})


def ask(client, text, match, room="#hearts", timeout=15):
    """Says text in room; the bot's (heartsbot's) line there matching
    `match`."""
    mark = client.mark()
    client.say(room, text)
    return client.wait_privmsg("heartsbot", match, to=room, since=mark,
                               timeout=timeout).text


def short_game(alice, bob, rules="standard hands=1 tie=share",
               timeout=60.0, room="#hearts"):
    """Clients alice and bob (in `room` with the bot) and two computer
    players play a game of `rules` to its end: alice opens the table, bob
    sits down, alice adds the computers and starts; the people pass their
    highest cards and play their lowest. Returns alice's mark before
    !start."""
    ask(alice, "!hearts " + rules, r"opens a Hearts table", room)
    ask(bob, "!join", r"^bob sits down", room)
    ask(alice, "!bot 2", r"computer players", room)
    start = alice.mark()
    alice.say(room, "!start")
    play_game([Player(alice, channel=room), Player(bob, channel=room)],
              lambda: alice.find(r"Game over!", frm="heartsbot", to=room,
                                 since=start),
              timeout=timeout)
    return start


def pass_highest(player, deal):
    """A pass: the highest cards."""
    return sorted(deal.cards, key=card_rank, reverse=True)[:deal.pass_count]


def play_lowest(player, prompt):
    """A play: the lowest marked card."""
    return min(prompt.marked, key=lambda c: (card_rank(c), c))


def answer(ev):
    """What a simple person says to a private line (parse_private), as
    text: passes their highest cards, plays their lowest legal one, adds
    on a moon; None when nothing is asked."""
    if isinstance(ev, Deal) and ev.pass_count:
        return "pass " + " ".join(pass_highest(None, ev))
    if isinstance(ev, Prompt) and ev.marked:
        return "play " + play_lowest(None, ev)
    if isinstance(ev, MoonChoice):
        return "moon add"
    return None


def play_game(players, done, timeout=120.0, on_deal=pass_highest,
              on_prompt=play_lowest, on_event=None, on_moon=None,
              poll=0.02):
    """Runs scripted players until done() returns something true, which is
    returned. Every new event of every player goes to on_event(player,
    event); a Deal to pass for, to on_deal(player, deal) -> cards (None or
    empty: do nothing); a Prompt, to on_prompt(player, prompt) -> a card,
    or (card, how, style) for Player.play, or None to let the turn run
    out; a MoonChoice, to on_moon(player, choice) -> 'add', 'subtract' or
    None (the default answers 'subtract'). Callbacks may block (wait for
    replies): the game waits for the player anyway. Raises WaitTimeout
    after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        for p in players:
            for ev in p.poll():
                if on_event is not None:
                    on_event(p, ev)
            if p.pass_due is not None:
                deal = p.pass_due
                p.pass_due = None
                cards = on_deal(p, deal) if on_deal else None
                if cards:
                    p.pass_cards(cards)
            if p.prompt_due is not None:
                prompt = p.prompt_due
                p.prompt_due = None
                choice = on_prompt(p, prompt) if on_prompt else None
                if isinstance(choice, tuple):
                    p.play(*choice)
                elif choice:
                    p.play(choice)
            if p.moon_due is not None:
                moon = p.moon_due
                p.moon_due = None
                answer = on_moon(p, moon) if on_moon else "subtract"
                if answer:
                    p.moon(answer)
        result = done()
        if result:
            return result
        if time.monotonic() > deadline:
            raise WaitTimeout(
                "the game did not end in %.0f s; last lines of %s:\n%s"
                % (timeout, players[0].nick, players[0].client.tail(25)))
        time.sleep(poll)


def sim_binary():
    """$HEARTS_SIM, else build/hearts-sim (as bot_binary), or None."""
    given = os.environ.get("HEARTS_SIM")
    path = given or os.path.join("build", "hearts-sim")
    if not os.path.isabs(path):
        path = os.path.join(REPO, path)
    if os.access(path, os.X_OK):
        return path
    if given:
        raise FileNotFoundError("HEARTS_SIM=%s is not an executable" % given)
    return None


def encode_name(name):
    """file_name_encode (docs/storage.md) for names short enough to be
    kept whole: [a-z0-9_-] as they are, '.' unless it leads, every other
    byte %XX; the empty name is %00."""
    if not name:
        return "%00"
    out = []
    for i, b in enumerate(name.encode("utf-8")):
        c = chr(b)
        if c in "abcdefghijklmnopqrstuvwxyz0123456789_-" or (c == "." and i):
            out.append(c)
        else:
            out.append("%%%02X" % b)
    return "".join(out)


def journals_in(data_dir):
    """The paths of the game journals under a data directory, sorted."""
    return sorted(os.path.join(d, f) for d, _, files in os.walk(data_dir)
                  for f in files if f.startswith("journal-"))


def journals_gone(data_dir, timeout=10.0):
    """The journals left under data_dir once none is, or after `timeout`
    seconds: a finished game's journal is removed by the bot's syncer
    thread once the game's record is synced (docs/storage.md), a moment
    after the game's end is said and logged."""
    deadline = time.monotonic() + timeout
    while True:
        left = journals_in(data_dir)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.02)


def archive_path(data_dir, network="local", room="#hearts"):
    """The archive of a room (docs/storage.md): data_dir/<network>/<room
    folded>/archive.jsonl; `room` given folded already."""
    return os.path.join(os.fspath(data_dir), encode_name(network),
                        encode_name(room), "archive.jsonl")


def read_records(data_dir, network="local", room="#hearts",
                 finished_only=True):
    """The game records in a room's archive (a list of dicts; [] if there
    is no file): the finished games', unless finished_only is False
    (stopped games are archived too, without "winners")."""
    path = archive_path(data_dir, network, room)
    try:
        with open(path, encoding="utf-8") as f:
            records = [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []
    return [r for r in records if not finished_only or "winners" in r]


def replay(path):
    """Runs `$HEARTS_SIM replay PATH`: (exit code, stdout + stderr)."""
    sim = sim_binary()
    if sim is None:
        raise unittest.SkipTest("no hearts-sim (set HEARTS_SIM or build "
                                "build/hearts-sim)")
    done = subprocess.run([sim, "replay", os.fspath(path)],
                          capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout + done.stderr


_PASS_STEP = {"left": 1, "right": -1}


def record_holdings(record, hand_index):
    """Each seat's cards after the passing of one hand of a record (a list
    of sets, seat order). Handles left, right, across and hold."""
    hand = record["hands"][hand_index]
    n = len(hand["deal"])
    held = [set(cards) for cards in hand["deal"]]
    direction = hand.get("pass", "hold")
    if direction == "hold":
        return held
    step = _PASS_STEP.get(direction, n // 2 if direction == "across" else None)
    if step is None:
        raise ValueError("pass direction %r not handled" % direction)
    passed = hand["passed"]
    for s in range(n):
        held[s] -= set(passed[s])
    for s in range(n):
        held[(s + step) % n] |= set(passed[s])
    return held


class ConsoleBot:
    """`$HEARTSBOT --console ARGS`: a person at the terminal. A reader
    thread keeps every line of stdout; stderr goes to tmpdir/NAME.log; the
    working directory is tmpdir and HOME is tmpdir/home, so the console's
    own data directory (its records, and its log in heartsbot.log) is
    self.data_dir = tmpdir/home/.local/state/heartsbot/console.

    tty=False: stdin and stdout are pipes. tty=True: both are one
    pseudo-terminal, with TERM=term and NO_COLOR=no_color (unset if None);
    the reader plays the terminal: self.raw has every byte written,
    self.lines the lines as shown (ANSI codes gone, a line erased by
    "\\r\\x1b[K" gone), self.partial the last line, not ended yet (the
    prompt), and typed lines are echoed as a terminal does."""

    def __init__(self, tmpdir, args=(), binary=None, name="console",
                 env=None, tty=False, term="xterm", no_color=None):
        self.dir = os.fspath(tmpdir)
        self.binary = binary or bot_binary()
        if self.binary is None:
            raise unittest.SkipTest("no bot binary (set HEARTSBOT or build "
                                    "build/heartsbot)")
        self.log_path = os.path.join(self.dir, name + ".log")
        self.home = os.path.join(self.dir, "home")
        os.makedirs(self.home, exist_ok=True)
        self.data_dir = os.path.join(self.home, ".local", "state",
                                     "heartsbot", "console")
        self.lines = []
        self.raw = b""
        self.partial = ""
        self._col = 0  # the cursor's column in partial
        self.closed = False
        self.tty = tty
        self._cond = threading.Condition()
        full_env = dict(os.environ)
        full_env.pop("XDG_STATE_HOME", None)
        full_env["HOME"] = self.home
        if tty:
            full_env["TERM"] = term
            full_env.pop("NO_COLOR", None)
            if no_color is not None:
                full_env["NO_COLOR"] = no_color
        full_env.update(env or {})
        self._master = None
        with open(self.log_path, "ab") as log:
            if tty:
                self._master, slave = pty.openpty()
                try:
                    self.proc = subprocess.Popen(
                        [self.binary, "--console"] + list(args),
                        stdin=slave, stdout=slave, stderr=log,
                        cwd=self.dir, env=full_env,
                        preexec_fn=_child_setup(signal.SIGTERM))
                finally:
                    os.close(slave)
            else:
                self.proc = subprocess.Popen(
                    [self.binary, "--console"] + list(args),
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=log, cwd=self.dir, env=full_env,
                    preexec_fn=_child_setup(signal.SIGTERM))
        _watch(self.proc.pid)
        _register(self)
        self._reader = threading.Thread(
            target=self._read_tty if tty else self._read_loop,
            name="console", daemon=True)
        self._reader.start()

    def _read_loop(self):
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            with self._cond:
                self.lines.append(line)
                self._cond.notify_all()
        with self._cond:
            self.closed = True
            self._cond.notify_all()

    # A control sequence: ESC [ parameters, one final byte.
    _CSI = re.compile(r"\x1b\[([0-9;]*)([@-~])")

    def _read_tty(self):
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        text = ""
        while True:
            try:
                data = os.read(self._master, 4096)
            except OSError:  # EIO: the other side is closed
                data = b""
            with self._cond:
                self.raw += data
                text += decoder.decode(data, final=not data)
                text = self._show(text)
                if not data:
                    self.closed = True
                self._cond.notify_all()
            if not data:
                return

    def _show(self, text):
        """Moves what the terminal shows of text into lines and partial;
        returns what is left (a control sequence not whole yet)."""
        cur, col = self.partial, self._col
        i = 0
        while i < len(text):
            ch = text[i]
            if ch == "\x1b":
                m = self._CSI.match(text, i)
                if m is None:
                    if len(text) - i < 16:
                        break  # the rest comes with the next read
                    i += 1
                    continue
                if m.group(2) == "K":
                    cur = cur[:col]
                i = m.end()
                continue
            if ch == "\r":
                col = 0
            elif ch == "\n":
                self.lines.append(cur)
                cur, col = "", 0
            else:
                cur = cur[:col] + ch + cur[col + 1:]
                col += 1
            i += 1
        self.partial, self._col = cur, col
        return text[i:]

    def send(self, line):
        """One line to the bot's stdin (typed, at a terminal)."""
        if self.tty:
            os.write(self._master, line.encode("utf-8") + b"\n")
            return
        self.proc.stdin.write(line.encode("utf-8") + b"\n")
        self.proc.stdin.flush()

    def close_input(self):
        """Closes stdin: end of input (at a terminal: Ctrl-D)."""
        if self.tty:
            try:
                if self._master is not None:
                    os.write(self._master, b"\x04")
            except OSError:
                pass
            return
        try:
            self.proc.stdin.close()
        except OSError:
            pass

    def wait_prompt(self, timeout=10.0):
        """Waits until the terminal's last line is the prompt alone."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self.partial != "> ":
                left = deadline - time.monotonic()
                if self.closed or left <= 0:
                    raise WaitTimeout("console: no prompt; last lines:\n%s"
                                      % "\n".join(self.lines[-5:]
                                                  + [self.partial]))
                self._cond.wait(left)

    def mark(self):
        with self._cond:
            return len(self.lines)

    def wait_line(self, pattern, since=0, timeout=10.0):
        """(index, line) of the first stdout line from `since` matching the
        regex; raises WaitTimeout at the timeout or the end of output."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self._cond:
            i = since
            while True:
                while i < len(self.lines):
                    if rx.search(self.lines[i]):
                        return i, self.lines[i]
                    i += 1
                left = deadline - time.monotonic()
                if self.closed or left <= 0:
                    break
                self._cond.wait(left)
            tail = "\n".join("  " + x for x in self.lines[-15:])
        raise WaitTimeout("console: no line matching %r (%s); last lines:\n%s"
                          % (pattern, "output closed" if self.closed
                             else "timeout", tail))

    def wait(self, timeout=None):
        """The exit code once it exits, or None after timeout. Once it has
        exited, everything it wrote has been read (lines, partial, raw):
        the reader ends at the end of its output."""
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
        self._reader.join(10.0)
        return rc

    def stop(self, timeout=10.0):
        """Closes stdin, then SIGTERM and SIGKILL as Bot.stop."""
        self.close_input()
        rc = _terminate(self.proc, timeout)
        _unregister(self)
        self._reader.join(5.0)
        if self.tty:
            if self._master is not None:
                os.close(self._master)
                self._master = None
        else:
            self.proc.stdout.close()
        return rc

    def _kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def log(self):
        """What the bot wrote on stderr."""
        return _read_text(self.log_path)

    def data_log(self):
        """The console's log file (heartsbot.log in its data directory)."""
        return _read_text(os.path.join(self.data_dir, "heartsbot.log"))


def _read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


# ----------------------------------------------------------------------
# unittest glue.

class HarnessTestCase(unittest.TestCase):
    """A TestCase with self.tmpdir (removed afterwards, kept when the
    environment has HEARTS_KEEP_TMP=1) and helpers that clean up after
    themselves."""

    def setUp(self):
        super().setUp()
        self.tmpdir = tempfile.mkdtemp(prefix="heartsbot-it-")
        if os.environ.get("HEARTS_KEEP_TMP") != "1":
            self.addCleanup(shutil.rmtree, self.tmpdir, True)
        else:
            self.addCleanup(print, "kept", self.tmpdir, file=sys.stderr)

    def _need(self, kw):
        if kw.get("tls") and not testca.openssl_available():
            self.skipTest("openssl is not installed (the test CA needs it)")
        if kw.get("services") and not Anope.available():
            self.skipTest("anope is not installed (the test services)")

    def ngircd(self, **kw):
        if not Ngircd.available():
            self.skipTest("ngircd is not installed")
        self._need(kw)
        return self.enterContext(Ngircd(self.tmpdir, **kw))

    def inspircd(self, **kw):
        if not Inspircd.available():
            self.skipTest("inspircd is not installed")
        self._need(kw)
        return self.enterContext(Inspircd(self.tmpdir, **kw))

    def ca(self):
        """The test CA (testca.shared_ca()), or a skip without openssl."""
        if not testca.openssl_available():
            self.skipTest("openssl is not installed (the test CA needs it)")
        return testca.shared_ca()

    def account(self, server, name, password, cert=False):
        """Registers the account `name` with NickServ on an
        Inspircd(services=True): a client of that nick registers and
        quits. cert=True: it connects over TLS with the test CA's client
        certificate and adds its fingerprint (CERT ADD) for SASL EXTERNAL
        (Anope takes a fingerprint only from the connection that shows it,
        unless one is a services operator)."""
        kw = {}
        port = server.port
        if cert:
            ca = self.ca()
            kw = dict(tls=True, cafile=ca.ca_cert, certfile=ca.client_cert,
                      keyfile=ca.client_key)
            port = server.tls_port
        with Client(port, name, **kw) as c:
            c.ns_register(password)
            if cert:
                c.ns_cert_add()
            c.quit()

    def client(self, server_or_port, nick, **kw):
        port = getattr(server_or_port, "port", server_or_port)
        return self.enterContext(Client(port, nick, **kw))

    def bot(self, config, **kw):
        b = Bot(self.tmpdir, config, **kw)
        self.addCleanup(b.stop)
        return b

    def console(self, args=(), **kw):
        """A ConsoleBot in self.tmpdir, stopped after the test."""
        c = ConsoleBot(self.tmpdir, args, **kw)
        self.addCleanup(c.stop)
        return c


def main():
    """Runs the tests of the calling module; exit 0 if all passed, 77 if
    every test was skipped, 1 otherwise."""
    verbosity = 2 if "-v" in sys.argv[1:] else 1
    argv = [sys.argv[0]] + [a for a in sys.argv[1:] if a != "-v"]
    prog = unittest.main(module="__main__", argv=argv, exit=False,
                         verbosity=verbosity)
    result = prog.result
    kill_everything()
    if not result.wasSuccessful():
        sys.exit(1)
    if result.testsRun and len(result.skipped) == result.testsRun:
        sys.exit(77)
    sys.exit(0)
