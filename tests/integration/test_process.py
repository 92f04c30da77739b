"""The bot as a process, against a real ngircd: a bad configuration stops
it at start with file, line and column; SIGHUP reloads what can be
reloaded, and leaks nothing under valgrind; SIGTERM tells the tables and
says goodbye before QUIT; a file size limit (RLIMIT_FSIZE) makes writing
the game record fail, logged, and the bot lives on; one bot serves
several networks from one configuration."""

import os
import resource
import shutil
import signal
import subprocess
import unittest

import harness
from harness import HarnessTestCase


def fast_game():
    return {"turn_timeout": 30, "next_hand_delay": 0}


class ProcessTest(HarnessTestCase):
    def start_bot(self, server, **kw):
        cfg = harness.bot_config(server.port, self.tmpdir + "/data",
                                 game=fast_game(), **kw)
        return self.bot(cfg)

    def joined(self, server, nick, channel="#hearts", timeout=20):
        c = self.client(server, nick)
        c.join(channel)
        c.wait_member("heartsbot", channel, timeout=timeout)
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

    def test_sighup_leaks_nothing_under_valgrind(self):
        valgrind = shutil.which("valgrind")
        if valgrind is None:
            raise unittest.SkipTest("valgrind is not installed")
        with open(harness.bot_binary(), "rb") as f:
            if b"__asan_init" in f.read():
                raise unittest.SkipTest("an AddressSanitizer build: not for "
                                        "valgrind")
        wrapper = os.path.join(self.tmpdir, "heartsbot-valgrind")
        with open(wrapper, "w") as f:
            f.write("#!/bin/sh\nexec %s -q --leak-check=full "
                    "--errors-for-leak-kinds=definite --error-exitcode=99 "
                    "%s \"$@\"\n" % (valgrind, harness.bot_binary()))
        os.chmod(wrapper, 0o755)
        server = self.ngircd()
        cfg = harness.bot_config(server.port, self.tmpdir + "/data",
                                 game=fast_game())
        bot = self.bot(cfg, binary=wrapper)
        # valgrind starts slowly, the more so on a busy machine
        self.joined(server, "alice", timeout=90)
        for i in range(3):
            bot.signal(signal.SIGHUP)
            bot.wait_log(r"(?s)(configuration reloaded.*){%d}" % (i + 1),
                         timeout=30)
        self.assertEqual(bot.stop(timeout=60), 0, bot.log()[-3000:])

    def test_file_size_limit_fails_the_record_and_the_bot_lives(self):
        server = self.ngircd()
        data = os.path.join(self.tmpdir, "data")
        records = harness.archive_path(data)
        os.makedirs(os.path.dirname(records))
        with open(records, "w") as f:
            f.write('{"pad": "%s"}\n' % ("x" * 1900))
        size = os.path.getsize(records)
        cfg = harness.bot_config(
            server.port, data, bot={"log_level": "error"},
            irc={"flood_burst": 100, "flood_interval_ms": 100},
            game={"turn_timeout": 3600, "next_hand_delay": 0})
        # the bot inherits the limit (its log stays far below it)
        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size + 100, hard))
        try:
            bot = self.bot(cfg)
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        alice = self.joined(server, "alice")
        alice.say("#hearts", "!hearts standard hands=1")
        alice.say("#hearts", "!start")
        mark = alice.mark()
        harness.play_game(
            [harness.Player(alice)],
            lambda: alice.find(r"Game over!", frm="heartsbot", to="#hearts",
                               since=mark),
            timeout=60)
        bot.wait_log(r"game record not written.*File too large", timeout=15)
        alice.wait_privmsg("heartsbot", r"Results can't be saved: a file "
                           r"reached the size limit\.", to="#hearts",
                           since=mark, timeout=15)
        self.assertTrue(bot.alive())
        self.assertEqual(os.path.getsize(records), size)
        # and it still answers
        mark = alice.mark()
        alice.say("#hearts", "!hearts")
        alice.wait_privmsg("heartsbot", r"opens a Hearts table", to="#hearts",
                           since=mark, timeout=15)

    def test_second_bot_on_one_data_dir_refuses_to_start(self):
        server = self.ngircd()
        data = os.path.join(self.tmpdir, "data")
        first = self.bot(harness.bot_config(server.port, data,
                                            game=fast_game()))
        self.joined(server, "alice")
        cfg = harness.bot_config(server.port, data, nick="second",
                                 game=fast_game())
        second = self.bot(cfg, name="second")
        self.assertEqual(second.wait(timeout=20), 1, second.log())
        self.assertIn("another heartsbot (pid %d) is already using data "
                      "directory %s" % (first.pid, data), second.log())
        self.assertTrue(first.alive())
        # a killed bot leaves no lock behind: a third one starts and joins
        first.proc.kill()
        first.proc.wait()
        self.bot(cfg, name="third")
        bob = self.client(server, "bob")
        bob.join("#hearts")
        bob.wait_member("second", "#hearts", timeout=20)

    def test_sigterm_says_goodbye_before_quit(self):
        server = self.ngircd()
        bot = self.start_bot(server)
        alice = self.joined(server, "alice")
        alice.say("#hearts", "!hearts")
        alice.say("#hearts", "!start")
        alice.wait_privmsg("heartsbot", r"Your cards", timeout=15)
        mark = alice.mark()
        self.assertEqual(bot.stop(), 0)
        # the game is journaled: it goes on at the next start
        bye = alice.wait_privmsg("heartsbot", r"shutting down: this game "
                                 r"goes on when it is back", to="#hearts",
                                 since=mark, timeout=15)
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
