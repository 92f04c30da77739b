"""`heartsbot --appservice-registration CONFIG` (docs/hosting.md, "Matrix
as an application service"), the real binary: it writes the registration
file of each [[matrix]] in mode = "appservice" beside the config (mode
0640 whatever the umask, fresh 64-hex tokens, the YAML a homeserver reads:
checked with PyYAML, the reader Synapse uses, when python3-yaml is
there), keeps a file that is there on a second run byte for byte, says
what is wrong with a file it cannot use, exits 0 / 1 / 2 as documented,
and connects to nothing (a homeserver port that records connections sees
none)."""

import os
import re
import socket
import stat
import subprocess

import harness
from harness import HarnessTestCase

try:
    import yaml
except ImportError:      # Debian: python3-yaml
    yaml = None

HEX64 = re.compile(r"[0-9a-f]{64}\Z")


def slurp(path):
    with open(path) as f:
        return f.read()


class RegistrationTest(HarnessTestCase):
    def setUp(self):
        super().setUp()
        if harness.bot_binary() is None:
            self.skipTest("build/heartsbot is not built")
        # a homeserver that must never be called: it records connections
        self.homeserver = socket.socket()
        self.addCleanup(self.homeserver.close)
        self.homeserver.bind(("127.0.0.1", 0))
        self.homeserver.listen(8)
        self.homeserver.setblocking(False)
        self.hs_url = "http://127.0.0.1:%d" % self.homeserver.getsockname()[1]
        self.conf_dir = os.path.join(self.tmpdir, "etc")
        self.other_dir = os.path.join(self.tmpdir, "var")
        os.makedirs(self.conf_dir)
        os.makedirs(self.other_dir)

    def tearDown(self):
        try:
            conn, _ = self.homeserver.accept()
            conn.close()
            self.fail("the command connected to the homeserver")
        except BlockingIOError:
            pass
        super().tearDown()

    def matrix(self, name, user, **kw):
        table = {"name": name, "homeserver": self.hs_url, "user_id": user,
                 "rooms": ["#hearts:example.org"]}
        table.update(kw)
        return table

    def write_config(self, tables, name="bot.toml"):
        cfg = {"bot": {"data_dir": os.path.join(self.tmpdir, "data")},
               "matrix": tables}
        path = os.path.join(self.conf_dir, name)
        with open(path, "w") as f:
            f.write(harness.to_toml(cfg))
        return path

    def run_command(self, *args, umask=0o022):
        """The command, from a directory that is not the config's."""
        return subprocess.run([harness.bot_binary()] + list(args),
                              cwd=self.tmpdir, umask=umask,
                              capture_output=True, text=True, timeout=30)

    def read_registration(self, path):
        """The file's top-level values (as the bot reads them) and text."""
        text = slurp(path)
        values = dict(re.findall(r'^([a-z_]+): "([^"]*)"$', text, re.M))
        if yaml is not None:
            doc = yaml.safe_load(text)
            for k in ("id", "url", "as_token", "hs_token",
                      "sender_localpart"):
                self.assertEqual(doc[k], values[k])
            self.assertIs(doc["rate_limited"], False)
            self.assertEqual(doc["namespaces"]["aliases"], [])
            self.assertEqual(doc["namespaces"]["rooms"], [])
            values["users"] = doc["namespaces"]["users"]
        return values, text

    def test_writes_then_keeps(self):
        path = self.write_config([
            self.matrix("sync", "@sync:example.org", password="p"),
            self.matrix("mx", "@hearts.bot:example.org", mode="appservice",
                        registration="heartsbot-mx.yaml"),
            self.matrix("six", "@bot:example.org", mode="appservice",
                        registration=os.path.join(self.other_dir, "six.yaml"),
                        listen="[::1]:9010"),
        ])
        mx_path = os.path.join(self.conf_dir, "heartsbot-mx.yaml")
        six_path = os.path.join(self.other_dir, "six.yaml")
        # a umask that would hide the file from the homeserver's group
        p = self.run_command("--appservice-registration", path, umask=0o077)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, "")
        self.assertIn("wrote %s: the registration of [[matrix]] \"mx\"" %
                      mx_path, p.stdout)
        self.assertIn("wrote %s: the registration of [[matrix]] \"six\"" %
                      six_path, p.stdout)
        self.assertIn("app_service_config_files", p.stdout)
        self.assertIn("the homeserver will reach the bot at "
                      "http://127.0.0.1:9009", p.stdout)
        self.assertIn("http://[::1]:9010", p.stdout)
        self.assertNotIn("sync", p.stdout)
        # nothing else was made: no temporary files, no data directory
        self.assertEqual(sorted(os.listdir(self.conf_dir)),
                         ["bot.toml", "heartsbot-mx.yaml"])
        self.assertEqual(os.listdir(self.other_dir), ["six.yaml"])
        self.assertFalse(os.path.exists(os.path.join(self.tmpdir, "data")))

        tokens = []
        for reg, name, url, local, regex in (
                (mx_path, "mx", "http://127.0.0.1:9009", "hearts.bot",
                 r"^@hearts\.bot:example\.org$"),
                (six_path, "six", "http://[::1]:9010", "bot",
                 r"^@bot:example\.org$")):
            self.assertEqual(stat.S_IMODE(os.stat(reg).st_mode), 0o640)
            values, text = self.read_registration(reg)
            self.assertEqual(values["id"], "heartsbot-" + name)
            self.assertEqual(values["url"], url)
            self.assertEqual(values["sender_localpart"], local)
            self.assertRegex(values["as_token"], HEX64)
            self.assertRegex(values["hs_token"], HEX64)
            tokens += [values["as_token"], values["hs_token"]]
            self.assertIn("rate_limited: false\n", text)
            self.assertIn('      regex: "%s"\n' % regex.replace("\\", "\\\\"),
                          text)
            if yaml is not None:
                self.assertEqual(values["users"],
                                 [{"exclusive": True, "regex": regex}])
                # the regex claims the bot and nobody else
                self.assertTrue(re.match(regex, "@%s:example.org" % local))
                self.assertFalse(re.match(regex, "@%s:example.org.evil" %
                                          local))
        self.assertEqual(len(set(tokens)), 4)

        # again: both kept as they are
        before = {r: (slurp(r), os.stat(r).st_mtime_ns)
                  for r in (mx_path, six_path)}
        p = self.run_command("--appservice-registration", path)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("%s exists: kept" % mx_path, p.stdout)
        self.assertIn("%s exists: kept" % six_path, p.stdout)
        self.assertNotIn("wrote", p.stdout)
        for r, (text, mtime) in before.items():
            self.assertEqual(slurp(r), text)
            self.assertEqual(os.stat(r).st_mtime_ns, mtime)

        # the listener moved: the file is kept, and the command says the
        # url in it is what the homeserver uses
        cfg = slurp(path)
        with open(path, "w") as f:
            f.write(cfg.replace('listen = "[::1]:9010"',
                                'listen = "127.0.0.1:9011"'))
        p = self.run_command("--appservice-registration", path)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('note: its url is "http://[::1]:9010", and the bot '
                      'listens at http://127.0.0.1:9011', p.stdout)
        self.assertEqual(slurp(six_path), before[six_path][0])

    def test_errors(self):
        # usage
        for args in ([], ["a", "b"], ["--config", "x"]):
            p = self.run_command("--appservice-registration", *args)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn("heartsbot --appservice-registration CONFIG",
                          p.stderr)
        # a config that cannot be read, or is refused
        p = self.run_command("--appservice-registration",
                             os.path.join(self.tmpdir, "missing.toml"))
        self.assertEqual(p.returncode, 1)
        self.assertIn("missing.toml: cannot open", p.stderr)
        bad = self.write_config([self.matrix(
            "mx", "@b:example.org", mode="appservice", password="p",
            registration="r.yaml")], name="bad.toml")
        p = self.run_command("--appservice-registration", bad)
        self.assertEqual(p.returncode, 1)
        self.assertRegex(p.stderr, r"bad\.toml:\d+:1: 'password' is not "
                                   r"used with mode = \"appservice\"")
        self.assertFalse(os.path.exists(os.path.join(self.conf_dir,
                                                     "r.yaml")))
        # no appservice entry at all
        only_sync = self.write_config(
            [self.matrix("s", "@s:example.org", password="p")],
            name="sync.toml")
        p = self.run_command("--appservice-registration", only_sync)
        self.assertEqual(p.returncode, 1)
        self.assertIn('no [[matrix]] in %s has mode = "appservice": no '
                      'registration to write' % only_sync, p.stderr)

        # one entry of three fails: the others are still done, exit 1
        junk = os.path.join(self.conf_dir, "junk.yaml")
        with open(junk, "w") as f:
            f.write("id: x\nas_token: 1234\n")
        alien = os.path.join(self.conf_dir, "alien.yaml")
        with open(alien, "w") as f:
            f.write("id: x\nas_token: a\nhs_token: b\n"
                    "sender_localpart: someone\n")
        path = self.write_config([
            self.matrix("junk", "@b:example.org", mode="appservice",
                        registration="junk.yaml"),
            self.matrix("alien", "@b:example.org", mode="appservice",
                        registration="alien.yaml"),
            self.matrix("nodir", "@b:example.org", mode="appservice",
                        registration="no/such/dir/r.yaml"),
            self.matrix("good", "@b:example.org", mode="appservice",
                        registration="good.yaml"),
        ])
        before = {f: slurp(os.path.join(self.conf_dir, f))
                  for f in ("junk.yaml", "alien.yaml")}
        p = self.run_command("--appservice-registration", path)
        self.assertEqual(p.returncode, 1)
        self.assertIn('[[matrix]] "junk": %s:2:11: \'as_token\' is a number '
                      'in YAML, not a string: quote it' % junk, p.stderr)
        self.assertIn('[[matrix]] "alien": %s: its sender_localpart is '
                      '"someone" but user_id is "@b:example.org"' % alien,
                      p.stderr)
        self.assertIn('[[matrix]] "nodir": %s: cannot create a file beside '
                      'it: No such file or directory (nothing written)' %
                      os.path.join(self.conf_dir, "no/such/dir/r.yaml"),
                      p.stderr)
        self.assertIn("wrote %s" % os.path.join(self.conf_dir, "good.yaml"),
                      p.stdout)
        for f, text in before.items():
            self.assertEqual(slurp(os.path.join(self.conf_dir, f)),
                             text)
        self.assertFalse(os.path.exists(os.path.join(self.conf_dir, "no")))
        self.assertEqual(
            sorted(os.listdir(self.conf_dir)),
            ["alien.yaml", "bad.toml", "bot.toml", "good.yaml", "junk.yaml",
             "sync.toml"])


if __name__ == "__main__":
    harness.main()
