#!/usr/bin/python3
"""Benchmark: connecting to IRC over TCP, TLS and TLS with SASL; memory per
connection.

  env HEARTSBOT=build-bench/heartsbot /usr/bin/python3 bench/irc_connect.py
  # about a minute; docs/benchmarks.md has the results and the date

Starts its own servers on 127.0.0.1 through tests/integration/harness.py:
ngIRCd with a TLS port, and InspIRCd 3 (ssl_gnutls) linked to Anope with
the IRCv3 account modules, both with certificates of a test CA made now.
Then, --runs times each, it starts the real bot and measures the time from
its "connecting to" log line to its "joined #hearts" line (the bot's own
millisecond timestamps), for:

- ngIRCd, plain TCP; ngIRCd, TLS (certificate verified against the CA);
- InspIRCd, plain; TLS; TLS with SASL PLAIN; TLS with SASL EXTERNAL (the
  bot's client certificate added to its account with NickServ CERT ADD).

Memory per connection: the bot with 1 and then with --networks [[irc]]
tables to the same ngIRCd (each its own nick and connection), plain and
TLS; VmRSS once every network has joined, and the difference divided by
the extra connections.

Prints markdown tables. Nothing is asserted. HEARTS_KEEP_TMP=1 keeps the
temp dir (configs, logs).
"""

import argparse
import datetime
import os
import re
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import scripted  # noqa: E402
from scripted import harness  # noqa: E402
import testca  # noqa: E402  (tests/integration, on the path via scripted)

STAMP = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})Z")


def stamp_of(line):
    m = STAMP.match(line)
    if not m:
        return None
    return datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f")


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def run_bot(tmp, name, cfg, joins, timeout=30.0):
    """Starts the bot, waits for `joins` "joined #" lines; returns
    (bot, seconds from the first "connecting to" to the last join)."""
    bot = harness.Bot(tmp, cfg, name=name)
    deadline = time.monotonic() + timeout
    while True:
        log = bot.log()
        joined = [ln for ln in log.splitlines() if " joined #" in ln]
        if len(joined) >= joins:
            break
        if time.monotonic() > deadline or not bot.alive():
            bot.stop()
            raise RuntimeError("%s: no join; log:\n%s" % (name, log[-3000:]))
        time.sleep(0.01)
    lines = log.splitlines()
    start = next(stamp_of(ln) for ln in lines if "connecting to" in ln)
    end = stamp_of(joined[joins - 1])
    return bot, (end - start).total_seconds()


def config(tmp, port, nick, **irc):
    cfg = harness.bot_config(port, os.path.join(tmp, "data-" + nick),
                             nick=nick)
    cfg["bot"]["log_level"] = "info"
    cfg["irc"][0].update(irc)
    return cfg


def timings(tmp, label, port, runs, **irc):
    times = []
    for i in range(runs):
        nick = "hb%d" % i if "sasl_mechanism" not in irc else irc.pop(
            "_nick", "hbsasl")
        cfg = config(tmp, port, nick, **irc)
        bot, secs = run_bot(tmp, "%s-%d" % (label.replace(" ", "_")[:20], i),
                            cfg, 1)
        times.append(secs * 1000)
        bot.stop()
        time.sleep(0.2)
    return times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--networks", type=int, default=21)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-connect-")
    ca = testca.shared_ca()
    rows = []
    try:
        ng = harness.Ngircd(os.path.join(tmp, "ngircd"), tls=True)
        rows.append(("ngIRCd, TCP", timings(tmp, "ng plain", ng.port,
                                             args.runs)))
        rows.append(("ngIRCd, TLS", timings(
            tmp, "ng tls", ng.tls_port, args.runs, tls=True,
            tls_ca_file=ca.ca_cert)))

        ins = harness.Inspircd(os.path.join(tmp, "inspircd"), tls=True,
                               services=True)
        owner = ins.client("hbsasl", tls=True, certfile=ca.client_cert,
                           keyfile=ca.client_key)
        owner.ns_register("sekrit-pw")
        owner.services("CERT ADD", reply=r"(?i)added|already")
        owner.quit()
        time.sleep(0.5)
        rows.append(("InspIRCd, TCP", timings(tmp, "in plain", ins.port,
                                               args.runs)))
        rows.append(("InspIRCd, TLS", timings(
            tmp, "in tls", ins.tls_port, args.runs, tls=True,
            tls_ca_file=ca.ca_cert)))
        plain = []
        ext = []
        for i in range(args.runs):
            plain += timings(tmp, "in sasl plain %d" % i, ins.tls_port, 1,
                             tls=True, tls_ca_file=ca.ca_cert,
                             sasl_mechanism="plain", sasl_username="hbsasl",
                             sasl_password="sekrit-pw", _nick="hbsasl")
            ext += timings(tmp, "in sasl ext %d" % i, ins.tls_port, 1,
                           tls=True, tls_ca_file=ca.ca_cert,
                           tls_cert_file=ca.client_cert,
                           tls_key_file=ca.client_key,
                           sasl_mechanism="external", _nick="hbsasl")
        rows.append(("InspIRCd, TLS + SASL PLAIN", plain))
        rows.append(("InspIRCd, TLS + SASL EXTERNAL", ext))
        ins.stop()

        print("| connection | start to joined, median (min-max) |")
        print("|---|---|")
        for label, t in rows:
            print("| %s | %.0f ms (%.0f-%.0f), %d runs |"
                  % (label, statistics.median(t), min(t), max(t), len(t)))

        print()
        print("| networks | TCP VmRSS | TLS VmRSS |")
        print("|---|---|---|")
        mem = {}
        for n in (1, args.networks):
            for tls in (False, True):
                cfg = config(tmp, ng.tls_port if tls else ng.port, "m0")
                base = dict(cfg["irc"][0])
                nets = []
                for k in range(n):
                    net = dict(base)
                    net.update(name="n%d" % k, nick="m%d%s" % (k, "t" * tls))
                    if tls:
                        net.update(tls=True, tls_ca_file=ca.ca_cert)
                    nets.append(net)
                cfg["irc"] = nets
                bot, _ = run_bot(tmp, "mem-%d-%d" % (n, tls), cfg, n, 60)
                time.sleep(2)
                mem[(n, tls)] = rss_kib(bot.pid)
                bot.stop()
            print("| %d | %d KiB | %d KiB |" % (n, mem[(n, False)],
                                              mem[(n, True)]))
        extra = args.networks - 1
        print()
        print("Per connection: TCP %.0f KiB, TLS %.0f KiB" % (
            (mem[(args.networks, False)] - mem[(1, False)]) / extra,
            (mem[(args.networks, True)] - mem[(1, True)]) / extra))
        ng.stop()
    finally:
        harness.kill_everything()
        if os.environ.get("HEARTS_KEEP_TMP"):
            print("kept", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
