"""The harness's own parts that need no server: line parsing, formatting
stripping, the bot config it writes (read back with tomllib, checked
against config.example.toml), and Bot's process handling, proven with a
stand-in shell script for the bot binary.
Run: /usr/bin/python3 tests/integration/test_harness.py -v
"""

import os
import signal
import stat
import sys
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import HarnessTestCase, parse_line, strip_formatting  # noqa


class ParseTest(HarnessTestCase):

    def test_parse_line_privmsg(self):
        m = parse_line(":alice!~al@127.0.0.1 PRIVMSG #hearts :\x02play\x02 QS")
        self.assertEqual(m.prefix, "alice!~al@127.0.0.1")
        self.assertEqual(m.nick, "alice")
        self.assertEqual(m.userhost, "~al@127.0.0.1")
        self.assertEqual(m.command, "PRIVMSG")
        self.assertEqual(m.params, ["#hearts", "\x02play\x02 QS"])
        self.assertEqual(m.target, "#hearts")
        self.assertEqual(m.text, "play QS")
        self.assertEqual(m.raw_text, "\x02play\x02 QS")

    def test_parse_line_numeric_tags_and_no_trailing(self):
        m = parse_line("@time=2024-01-01T00:00:00Z;account=al :irc.test "
                       "366 bob #hearts :End of NAMES list")
        self.assertEqual(m.tags, {"time": "2024-01-01T00:00:00Z",
                                  "account": "al"})
        self.assertEqual(m.command, "366")
        self.assertEqual(m.params, ["bob", "#hearts", "End of NAMES list"])
        m = parse_line("PING irc.test")
        self.assertEqual((m.prefix, m.command, m.params),
                         ("", "PING", ["irc.test"]))
        m = parse_line(":a!b@c JOIN #x")
        self.assertEqual((m.nick, m.command, m.target), ("a", "JOIN", "#x"))

    def test_strip_formatting(self):
        self.assertEqual(strip_formatting(
            "\x0304Q\u2665\x03 \x0304,01K\u2666\x0F \x1Fu\x1F\x1Di\x1D\x16r"
            "\x16 \x0312,5x\x03 \x031"), "Q\u2665 K\u2666 uir x ")
        # Three digits: the third is text.
        self.assertEqual(strip_formatting("\x031234"), "34")

    def test_private_lines_name_a_room_with_spaces(self):
        """A Matrix room is named by its name in direct messages, and a
        name may hold spaces."""
        d = harness.parse_private(
            "Hand 2 at Card Club. Your cards: \u2663 2 3 | Pass 3 cards to "
            "bob: pass C1 C2 ...")
        self.assertIsInstance(d, harness.Deal)
        self.assertEqual((d.hand_no, d.table, d.pass_count, d.pass_to),
                         (2, "Card Club", 3, "bob"))
        p = harness.parse_private(
            "Your turn at Card Club, trick 4: alice 7\u2663. Play one of: "
            "\u2663 2 8. No point cards yet.")
        self.assertIsInstance(p, harness.Prompt)
        self.assertEqual(p.table, "Card Club")

    def test_irc_lower(self):
        self.assertTrue(harness.irc_eq("Nick[a]\\~", "nick{A}|^"))
        self.assertFalse(harness.irc_eq("nick", "nick_"))


class ConfigTest(HarnessTestCase):

    def test_bot_config_follows_the_example(self):
        example = harness.example_config()
        cfg = harness.bot_config(6999, os.path.join(self.tmpdir, "data"),
                                 channels=["#a", "#b omnibus target=50"],
                                 game={"turn_timeout": 5, "grace_period": 2})
        back = tomllib.loads(harness.to_toml(cfg))
        self.assertEqual(back, cfg)
        # the example's [[matrix]] account stays out of IRC tests
        self.assertEqual(set(back), set(example) - {"matrix"})
        for table in ("bot", "game"):
            self.assertEqual(set(back[table]), set(example[table]))
        self.assertEqual(set(back["irc"][0]), set(example["irc"][0]))
        self.assertEqual(back["irc"][0]["port"], 6999)
        self.assertEqual(back["irc"][0]["host"], "127.0.0.1")
        self.assertEqual(back["irc"][0]["channels"],
                         ["#a", "#b omnibus target=50"])
        self.assertEqual(back["game"]["turn_timeout"], 5)
        self.assertEqual(back["game"]["lobby_timeout"],
                         example["game"]["lobby_timeout"])
        self.assertEqual(back["bot"]["data_dir"],
                         os.path.join(self.tmpdir, "data"))

    def test_to_toml_quotes_strings(self):
        cfg = {"top": "x", "bot": {"s": 'a "q" \\ \u2665', "t": True,
                                   "n": -3},
               "irc": [{"name": "one"}, {"name": "two", "l": []}]}
        self.assertEqual(tomllib.loads(harness.to_toml(cfg)), cfg)


FAKE_BOT = """#!/bin/sh
# A stand-in for heartsbot: logs its arguments, exits 0 on SIGTERM.
echo "fake bot $*" >&2
trap 'echo "fake bot: SIGTERM" >&2; exit 0' TERM
while :; do sleep 0.05; done
"""

STUBBORN_BOT = """#!/bin/sh
trap '' TERM
echo "stubborn bot" >&2
while :; do sleep 0.05; done
"""


class BotProcessTest(HarnessTestCase):

    def _script(self, name, text):
        path = os.path.join(self.tmpdir, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return path

    def test_start_writes_config_and_stop_sends_sigterm(self):
        fake = self._script("fakebot", FAKE_BOT)
        cfg = harness.bot_config(7000, os.path.join(self.tmpdir, "data"))
        bot = self.bot(cfg, binary=fake)
        self.assertTrue(bot.alive())
        m = bot.wait_log(r"fake bot --config (\S+)")
        self.assertEqual(m.group(1), bot.config_path)
        with open(bot.config_path, "rb") as f:
            self.assertEqual(tomllib.load(f)["irc"][0]["port"], 7000)
        self.assertEqual(bot.stop(), 0)
        self.assertFalse(bot.alive())
        self.assertIn("fake bot: SIGTERM", bot.log())

    def test_stop_kills_a_bot_that_ignores_sigterm(self):
        fake = self._script("stubborn", STUBBORN_BOT)
        bot = self.bot(harness.bot_config(7000, self.tmpdir), binary=fake)
        bot.wait_log(r"stubborn bot")
        self.assertEqual(bot.stop(timeout=1.0), -signal.SIGKILL)
        self.assertFalse(bot.alive())

    def test_bot_from_a_config_file(self):
        fake = self._script("fakebot", FAKE_BOT)
        path = os.path.join(self.tmpdir, "given.toml")
        with open(path, "w") as f:
            f.write(harness.to_toml(harness.bot_config(7001, self.tmpdir)))
        bot = self.bot(path, binary=fake)
        self.assertEqual(bot.config["irc"][0]["port"], 7001)
        bot.wait_log(r"--config " + path)
        self.assertEqual(bot.stop(), 0)


if __name__ == "__main__":
    harness.main()
