"""The installed Debian package: what it put on the system, and a whole
game through the installed bot started the way its systemd unit starts
it (the unit's ExecStart, User, Group and WorkingDirectory, an
environment like systemd's), against a private ngIRCd.

It needs the package installed and root (it edits the installed
/etc/heartsbot/heartsbot.toml as an operator would: the test server's
port, quick pacing), so it runs only with HEARTS_PACKAGE_TEST=1, which
scripts/package-test.sh sets after building and installing the package;
that script then checks upgrade, removal and purge. Under CTest it is
skipped.
Run: scripts/package-test.sh
"""

import grp
import os
import pwd
import re
import shlex
import signal
import stat
import subprocess
import sys
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import HarnessTestCase, Player, play_game  # noqa: E402

UNIT = "/lib/systemd/system/heartsbot.service"
CONF = "/etc/heartsbot/heartsbot.toml"
DATA = "/var/lib/heartsbot"
DOC = "/usr/share/doc/heartsbot"
EXAMPLES = ("config.example.toml", "libera.toml", "own-ircd.toml",
            "appservice.toml", "heartsbot.service")
NO_TIMEOUT = 3600


def unit_service(path):
    """The [Service] section of a systemd unit: {key: value}."""
    keys, section = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith(("#", ";")):
                continue
            if line.startswith("["):
                section = line
            elif section == "[Service]" and "=" in line:
                k, v = line.split("=", 1)
                keys[k.strip()] = v.strip()
    return keys


class UnitBot(harness.Bot):
    """The installed bot as the unit runs it: ExecStart's argv as User and
    Group (no supplementary groups), in WorkingDirectory, with the
    environment systemd gives a service of a system user."""

    def __init__(self, tmpdir, service):
        self.service = service
        super().__init__(tmpdir, CONF, binary="/usr/bin/heartsbot",
                         start=False)
        pw = pwd.getpwnam(service["User"])
        self.user = (pw.pw_uid, grp.getgrnam(service["Group"]).gr_gid)
        self.env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:"
                            "/usr/bin:/sbin:/bin",
                    "HOME": pw.pw_dir, "USER": pw.pw_name,
                    "LOGNAME": pw.pw_name, "SHELL": pw.pw_shell}

    def start(self):
        self.proc = harness._spawn(shlex.split(self.service["ExecStart"]),
                                   self.log_path, signal.SIGTERM,
                                   env=self.env,
                                   cwd=self.service["WorkingDirectory"],
                                   user=self.user)
        harness._register(self)


class InstalledPackageTest(HarnessTestCase):

    def setUp(self):
        if os.environ.get("HEARTS_PACKAGE_TEST") != "1":
            self.skipTest("the installed package's test: run "
                          "scripts/package-test.sh (it installs the package "
                          "and sets HEARTS_PACKAGE_TEST=1)")
        if os.geteuid() != 0:
            self.skipTest("the installed package's test runs as root")
        super().setUp()

    def test_files_user_and_data_directory(self):
        for prog in ("heartsbot", "hearts-sim"):
            self.assertTrue(os.access("/usr/bin/" + prog, os.X_OK), prog)
            self.assertTrue(os.path.isfile(
                "/usr/share/man/man1/%s.1.gz" % prog), prog)
            done = subprocess.run(["/usr/bin/" + prog, "--help"],
                                  capture_output=True, text=True, timeout=10)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertIn("usage: " + prog, done.stdout)
        for name in EXAMPLES:
            self.assertTrue(os.path.isfile(os.path.join(DOC, "examples",
                                                        name)), name)

        pw = pwd.getpwnam("heartsbot")
        self.assertEqual(pw.pw_dir, DATA)
        self.assertLess(pw.pw_uid, 1000)            # a system user
        self.assertIn("nologin", pw.pw_shell)
        self.assertEqual(grp.getgrgid(pw.pw_gid).gr_name, "heartsbot")

        st = os.stat(DATA)
        self.assertEqual((st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)),
                         (pw.pw_uid, pw.pw_gid, 0o750))
        # the config may hold passwords: root's, read by the bot's group
        st = os.stat(CONF)
        self.assertEqual((st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)),
                         (0, pw.pw_gid, 0o640))
        conffiles = subprocess.run(
            ["dpkg-query", "-W", "-f=${Conffiles}", "heartsbot"],
            capture_output=True, text=True, check=True).stdout
        self.assertIn(CONF + " ", conffiles)

        # the unit is installed, not enabled (the operator edits the
        # config first), and runs the installed bot on that config
        self.assertFalse(os.path.lexists(
            "/etc/systemd/system/multi-user.target.wants/heartsbot.service"))
        service = unit_service(UNIT)
        self.assertEqual(shlex.split(service["ExecStart"]),
                         ["/usr/bin/heartsbot", "--config", CONF])
        self.assertEqual((service["User"], service["Group"],
                          service["WorkingDirectory"]),
                         ("heartsbot", "heartsbot", DATA))
        # the installed config is the one the bot's data directory is in
        with open(CONF, "rb") as f:
            self.assertEqual(tomllib.load(f)["bot"]["data_dir"], DATA)

    def test_the_unit_plays_a_game(self):
        server = self.ngircd()
        # The operator's edit of the installed config: this server's port;
        # an unthrottled out-queue and no turn timeouts, for a quick game.
        with open(CONF, "rb") as f:
            cfg = tomllib.load(f)
        cfg["irc"][0].update(port=server.port, flood_burst=100,
                             flood_interval_ms=100)
        cfg["game"].update(turn_timeout=NO_TIMEOUT, next_hand_delay=0)
        with open(CONF, "w", encoding="utf-8") as f:   # keeps its mode
            f.write(harness.to_toml(cfg))

        bot = UnitBot(self.tmpdir, unit_service(UNIT))
        self.addCleanup(bot.stop)
        bot.start()
        nicks = ["alice", "bob", "carol", "dave"]
        clients = [self.client(server, n) for n in nicks]
        for c in clients:
            c.join("#hearts")
        start, _ = harness.start_table(clients, "standard hands=1")
        players = [Player(c) for c in clients]
        over = play_game(
            players, lambda: clients[0].find(r"Game over!", frm="heartsbot",
                                             to="#hearts", since=start),
            timeout=240)
        bot.wait_log(r"game record written", timeout=15)

        # the record, in the package's data directory, the bot user's
        records = harness.read_records(DATA)
        self.assertEqual(len(records), 1)
        self.assertEqual(harness.parse_final(over.text),
                         dict(zip(records[0]["players"],
                                  records[0]["totals"])))
        archive = harness.archive_path(DATA)
        self.assertEqual(os.stat(archive).st_uid, bot.user[0])
        done = subprocess.run(["/usr/bin/hearts-sim", "replay", archive],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)

        # `systemctl stop`: SIGTERM, a clean exit
        self.assertEqual(bot.stop(), 0, bot.log())
        self.assertNotRegex(bot.log(), re.compile(r" (error|fatal) "))


if __name__ == "__main__":
    harness.main()
