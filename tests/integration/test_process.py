"""The bot as a process, against a real ngircd: a bad configuration stops
it at start with file, line and column; SIGHUP reloads what can be
reloaded; SIGTERM tells the tables and says goodbye before QUIT; one bot
serves several networks from one configuration."""

import os
import signal
import subprocess

import harness
from harness import HarnessTestCase


def fast_game():
    return {"turn_timeout": 30, "next_hand_delay": 0}


class ProcessTest(HarnessTestCase):
    def start_bot(self, server, **kw):
        cfg = harness.bot_config(server.port, self.tmpdir + "/data",
                                 game=fast_game(), **kw)
        return self.bot(cfg)

    def joined(self, server, nick, channel="#hearts"):
        c = self.client(server, nick)
        c.join(channel)
        c.wait_member("heartsbot", channel, timeout=20)
        return c

    def test_bad_config_stops_at_start_with_position(self):
        path = os.path.join(self.tmpdir, "bad.toml")
        with open(path, "w") as f:
            f.write("[bot]\ncommand_prefix = \"!\"\n[game]\nturn_timeout "
                    "= 1\n")
        p = subprocess.run([harness.bot_binary(), "--config", path],
                           capture_output=True, text=True, timeout=20)
        self.assertEqual(p.returncode, 1)
        self.assertIn("bad.toml:4:", p.stderr)
        self.assertIn("turn_timeout", p.stderr)

        with open(path, "w") as f:
            f.write("[bot]\ncolours = true\n")
        p = subprocess.run([harness.bot_binary(), "--config", path],
                           capture_output=True, text=True, timeout=20)
        self.assertEqual(p.returncode, 1)
        self.assertIn("bad.toml:2:", p.stderr)
        self.assertIn("colors", p.stderr)  # the nearest valid key

    def test_sighup_reloads_the_prefix_and_keeps_a_bad_file_out(self):
        server = self.ngircd()
        bot = self.start_bot(server)
        alice = self.joined(server, "alice")
        # a new prefix, by editing the file and SIGHUP
        with open(bot.config_path) as f:
            text = f.read()
        with open(bot.config_path, "w") as f:
            f.write(text.replace('command_prefix = "!"',
                                 'command_prefix = "?"'))
        bot.signal(signal.SIGHUP)
        bot.wait_log(r"configuration reloaded", timeout=10)
        mark = alice.mark()
        alice.say("#hearts", "?hearts")
        alice.wait_privmsg("heartsbot", r"opens a Hearts table", to="#hearts",
                           since=mark, timeout=15)
        # a broken file is refused and the running config kept
        with open(bot.config_path, "w") as f:
            f.write("[bot\n")
        bot.signal(signal.SIGHUP)
        bot.wait_log(r"reload refused", timeout=10)
        mark = alice.mark()
        alice.say("#hearts", "?status")
        alice.wait_privmsg("heartsbot", r"Table at #hearts", to="#hearts",
                           since=mark, timeout=15)
        self.assertTrue(bot.alive())

    def test_sigterm_says_goodbye_before_quit(self):
        server = self.ngircd()
        bot = self.start_bot(server)
        alice = self.joined(server, "alice")
        alice.say("#hearts", "!hearts")
        alice.say("#hearts", "!start")
        alice.wait_privmsg("heartsbot", r"Your cards", timeout=15)
        mark = alice.mark()
        self.assertEqual(bot.stop(), 0)
        bye = alice.wait_privmsg("heartsbot", r"shutting down: this game "
                                 r"ends unscored", to="#hearts", since=mark,
                                 timeout=15)
        quit_ = alice.wait_for(command="QUIT", frm="heartsbot", since=mark,
                               timeout=15)
        self.assertLess(bye.time, quit_.time)
        self.assertIn("shutting down", quit_.text)

    def test_two_networks_at_once(self):
        one = self.ngircd()
        two = self.ngircd()
        cfg = harness.bot_config(one.port, self.tmpdir + "/data",
                                 game=fast_game())
        second = dict(cfg["irc"][0])
        second.update(name="second", port=two.port,
                      channels=["#cards"])
        cfg["irc"].append(second)
        self.bot(cfg)
        alice = self.joined(one, "alice")
        bob = self.joined(two, "bob", "#cards")
        alice.say("#hearts", "!hearts")
        bob.say("#cards", "!hearts party")
        alice.wait_privmsg("heartsbot", r"alice opens a Hearts table: "
                           r"standard", to="#hearts", timeout=15)
        bob.wait_privmsg("heartsbot", r"bob opens a Hearts table: party",
                         to="#cards", timeout=15)
        # the same nick on another network is another person
        alice2 = self.joined(two, "alice", "#cards")
        mark = alice2.mark()
        alice2.say("#cards", "!join")
        alice2.wait_privmsg("heartsbot", r"alice sits down \(2/4\)",
                            to="#cards", since=mark, timeout=15)


if __name__ == "__main__":
    harness.main()
