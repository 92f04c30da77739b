#!/usr/bin/python3
"""Benchmark: time from the bot's start to its joining the channel, over
plain TCP, TLS, and TLS with SASL PLAIN, on InspIRCd 3 (the connect class
of Debian's inspircd.conf, harness.Inspircd.DEBIAN_CLASS) linked to Anope
(the services of the integration tests), all on 127.0.0.1; or, with
--server ngircd, plain and TLS on ngIRCd 26 (default throttling, no
services).

  env HEARTSBOT=build-bench/heartsbot /usr/bin/python3 bench/irc_tls_connect.py
  env HEARTSBOT=build-bench/heartsbot /usr/bin/python3 bench/irc_tls_connect.py --server ngircd

For each mode (--modes, default plain,tls,tls+sasl) it runs the bot
--runs times (5) against one server, each run a fresh bot process, and
measures from the process start (just before the fork) to the moment its
log says "joined #hearts" (the log is polled every 5 ms), and to the
first line of its log that says "registered as". Between runs the bot
is stopped (SIGTERM) and the next run waits until the server has seen
it go. Prints every run and, per mode, the median and the range.

Note InspIRCd completes a registration on its once-a-second timer, so
every mode there carries up to a second of that: compare the modes with
each other, not with zero; ngIRCd has no such wait.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests",
                                "integration"))
import harness  # noqa: E402
import testca  # noqa: E402

PASSWORD = "bench-pw-1"


def version(name):
    done = subprocess.run([harness.which(name), "--version"],
                          capture_output=True, text=True, timeout=10)
    lines = (done.stdout + done.stderr).splitlines()
    return lines[0].strip() if lines else name


def keys(mode, server, ca):
    irc = {}
    if "tls" in mode:
        irc.update(port=server.tls_port, tls=True, tls_ca_file=ca.ca_cert)
    if "sasl" in mode:
        irc.update(sasl_mechanism="plain", sasl_password=PASSWORD)
    return irc


def one_run(tmp, server, irc, watcher, n):
    run_dir = os.path.join(tmp, "run%d" % n)
    os.makedirs(run_dir)
    cfg = harness.bot_config(server.port, os.path.join(run_dir, "data"),
                             irc=irc)
    bot = harness.Bot(run_dir, cfg, start=False)
    t0 = time.monotonic()
    bot.start()
    registered = joined = None
    deadline = t0 + 30
    while time.monotonic() < deadline and joined is None:
        log = bot.log()
        now = time.monotonic()
        if registered is None and "registered as" in log:
            registered = now - t0
        if "joined #hearts" in log:
            joined = now - t0
        time.sleep(0.005)
    account = watcher.whois_account("heartsbot")
    bot.stop()
    # wait until the server has let the nick go
    end = time.monotonic() + 10
    while time.monotonic() < end:
        if [m.command for m in watcher.whois("heartsbot")][:1] == ["401"]:
            break
        time.sleep(0.05)
    return registered, joined, account


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--modes", default=None,
                    help="default plain,tls,tls+sasl (ngircd: plain,tls)")
    ap.add_argument("--server", choices=("inspircd", "ngircd"),
                    default="inspircd")
    args = ap.parse_args()
    ngircd = args.server == "ngircd"
    modes = (args.modes or ("plain,tls" if ngircd
                            else "plain,tls,tls+sasl")).split(",")
    tmp = tempfile.mkdtemp(prefix="heartsbot-bench-")
    try:
        ca = testca.shared_ca()
        if ngircd:
            server = harness.Ngircd(tmp, tls=True, strict=True)
            print("%s; %d runs per mode" % (version("ngircd"), args.runs))
        else:
            server = harness.Inspircd(tmp, tls=True, services=True,
                                      **harness.Inspircd.DEBIAN_CLASS)
            with harness.Client(server.port, "heartsbot") as c:
                c.ns_register(PASSWORD)
                c.quit()
            print("%s, %s; %d runs per mode"
                  % (version("inspircd"), version("anope"), args.runs))
        watcher = harness.Client(server.port, "watcher")
        results = {}
        for mode in modes:
            for n in range(args.runs):
                reg, joined, account = one_run(
                    tmp, server, keys(mode, server, ca), watcher,
                    len(results.get(mode, [])) + 100 * modes.index(mode))
                print("%-9s run %d: registered %s, joined %s, account %s"
                      % (mode, n + 1,
                         "%.3f s" % reg if reg is not None else "never",
                         "%.3f s" % joined if joined is not None else "never",
                         account))
                if joined is not None:
                    results.setdefault(mode, []).append((reg, joined))
        print()
        print("| mode | runs | start to registered: median (min-max) "
              "| start to joined: median (min-max) |")
        print("|---|---|---|---|")
        for mode in modes:
            got = results.get(mode, [])
            if not got:
                print("| %s | 0 | | never joined |" % mode)
                continue
            cells = []
            for figures in zip(*got):
                cells.append("%.3f s (%.3f-%.3f)"
                             % (statistics.median(figures), min(figures),
                                max(figures)))
            print("| %s | %d | %s |" % (mode, len(got), " | ".join(cells)))
        watcher.quit()
        server.stop()
    finally:
        harness.kill_everything()
        if os.environ.get("HEARTS_KEEP_TMP") == "1":
            print("kept", tmp)
        else:
            shutil.rmtree(tmp, True)


if __name__ == "__main__":
    main()
