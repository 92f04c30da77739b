"""Who the bot talks to, and who it is, through the real bot and a real
IRC server (ngIRCd, which has no services).

- A user named NickServ, connected before the bot, is not services: the
  bot asks the server who NickServ is (USERHOST), sees a host that does
  not match services_mask, and never sends it the password.
- Someone has the bot's nick when it starts: it comes up as heartsbot_,
  tells the channel so; when the squatter quits it takes heartsbot back
  at once and tells the channel again.
- Secrets go only to confirmed people: bob quits mid-game and mallory
  (another user@host) takes his nick in the grace period; or the ircd
  restarts mid-game and mallory has bob's nick when the bot comes back.
  The game goes on over bob's turns (the turn timer hands them to a
  computer) and mallory never gets a private line: no hand, deal, prompt
  or reminder.
- Two seated people swap nicks: each keeps their own seat and cards.
Run: /usr/bin/python3 tests/integration/test_irc_identity.py -v
"""

import os
import re
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import HarnessTestCase, Player, play_game  # noqa: E402

FAST_IRC = {"flood_burst": 100, "flood_interval_ms": 100}
PASSWORD = "pw-7c1f9e"


class NickServTest(HarnessTestCase):

    def test_impostor_nickserv_never_gets_the_password(self):
        server = self.ngircd()
        impostor = self.client(server, "NickServ")
        irc = dict(FAST_IRC, nickserv_password=PASSWORD)
        bot = self.bot(harness.bot_config(server.port,
                                          os.path.join(self.tmpdir, "data"),
                                          irc=irc))
        bot.wait_log(r"joined #hearts", timeout=20)
        bot.wait_log(r"NickServ!\S+ is not services", timeout=10)
        time.sleep(1)
        for m in impostor.messages():
            self.assertNotIn(PASSWORD, m.raw)
            self.assertFalse(m.nick and harness.irc_eq(m.nick, "heartsbot")
                             and "IDENTIFY" in m.raw, m.raw)
        self.assertNotIn(PASSWORD, bot.log())
        self.assertEqual(bot.stop(), 0)



class NickSquatTest(HarnessTestCase):

    def test_squatted_nick_announced_and_regained(self):
        server = self.ngircd()
        squatter = self.client(server, "heartsbot")
        squatter.join("#hearts")
        alice = self.client(server, "alice")
        alice.join("#hearts")
        mark = alice.mark()
        bot = self.bot(harness.bot_config(server.port,
                                          os.path.join(self.tmpdir, "data"),
                                          irc=FAST_IRC))
        m = alice.wait_privmsg("heartsbot_", r"I am heartsbot_ for now",
                               to="#hearts", since=mark, timeout=20)
        self.assertIn("/msg heartsbot_", m.text)
        mark = alice.mark()
        squatter.quit("bye")
        alice.wait_for(command="NICK", frm="heartsbot_", since=mark,
                       timeout=10)
        m = alice.wait_privmsg("heartsbot", r"I have my nick back",
                               to="#hearts", since=mark, timeout=10)
        self.assertIn("/msg heartsbot", m.text)
        # and it answers under its own nick
        mark = alice.mark()
        alice.say("heartsbot", "help")
        alice.wait_privmsg("heartsbot", r".", since=mark, timeout=10)
        self.assertEqual(bot.stop(), 0)



class SecretsTest(HarnessTestCase):

    GAME = {"turn_timeout": 5, "grace_period": 60, "next_hand_delay": 0}

    def start(self):
        """alice and bob (and two computers) at a table, the game begun."""
        self.server = self.ngircd()
        bot = self.bot(harness.bot_config(
            self.server.port, os.path.join(self.tmpdir, "data"),
            bot={"colors": False}, irc=FAST_IRC, game=self.GAME))
        alice = self.client(self.server, "alice", user="alice")
        bob = self.client(self.server, "bob", user="bob")
        for c in (alice, bob):
            c.join("#hearts")
        alice.wait_member("heartsbot", "#hearts", timeout=15)
        alice.say("#hearts", "!hearts standard hands=1 pass_count=0")
        alice.wait_privmsg("heartsbot", r"opens a Hearts table", to="#hearts")
        bob.say("#hearts", "!join")
        alice.wait_privmsg("heartsbot", r"^bob sits down", to="#hearts")
        mark = alice.mark()
        alice.say("#hearts", "!start")
        bob.wait_privmsg("heartsbot", r"Your cards", timeout=10)
        return bot, alice, bob, mark

    def play_on_and_check(self, alice, mallory, since):
        """alice plays her turns while bob's run out, over two tricks with
        bob in them; mallory hears nothing private."""
        pa = Player(alice)

        def two_tricks():
            return len([m for m in alice.privmsgs_from("heartsbot",
                                                       "#hearts", since=since)
                        if re.match(r"Trick \d", m.text)]) >= 2
        play_game([pa], two_tricks, timeout=40)
        private = [m for m in mallory.privmsgs_from("heartsbot")
                   if not harness.is_channel(m.target)]
        self.assertEqual(private, [], [m.raw for m in private])

    def test_nick_taken_in_grace_period_gets_no_secret(self):
        bot, alice, bob, mark = self.start()
        bob.quit("gone")
        alice.wait_for(command="QUIT", frm="bob", since=mark)
        mallory = self.client(self.server, "bob", user="mallory")
        mallory.join("#hearts")
        self.play_on_and_check(alice, mallory, mark)
        self.assertEqual(bot.stop(), 0)

    def test_nick_taken_over_ircd_restart_gets_no_secret(self):
        bot, alice, bob, mark = self.start()
        self.assertEqual(self.server.stop(), 0)
        self.assertTrue(bob.wait_closed(10))
        bot.wait_log(r"local: disconnected", timeout=10)
        self.server.start()
        mallory = self.client(self.server, "bob", user="mallory")
        mallory.join("#hearts")
        alice2 = self.client(self.server, "alice", user="alice")
        alice2.join("#hearts")
        alice2.wait_member("heartsbot", "#hearts", timeout=30)
        self.play_on_and_check(alice2, mallory, 0)
        # it asked who has bob's nick (after the reconnect, or when a line
        # for bob was held if it saw bob quit as the server went down)
        self.assertRegex(bot.log(), r"-> USERHOST bob")
        self.assertEqual(bot.stop(), 0)

    def hand_of(self, c):
        """The cards the bot says c holds, asked privately. The answer, not
        a prompt (which shows the hand too): once it is here, nothing
        sent to c's nick before it is still on the way to whoever has that
        nick next."""
        mark = c.mark()
        c.say("heartsbot", "hand")
        m = c.wait_privmsg("heartsbot", r"^Your hand: ", since=mark)
        cards, _ = harness.parse_hand(
            harness.marked_text(m.raw_text).split("Your hand: ", 1)[1])
        self.assertTrue(cards, m.raw)
        return sorted(cards)

    def test_two_players_swap_nicks(self):
        """alice -> tmp, bob -> alice, tmp -> bob mid-game: each keeps
        their seat and cards under the other's old nick (ngIRCd has no
        accounts: by nick and user@host)."""
        self.GAME = dict(SecretsTest.GAME, turn_timeout=120)
        bot, alice, bob, mark = self.start()
        before = {alice: self.hand_of(alice), bob: self.hand_of(bob)}
        self.assertNotEqual(before[alice], before[bob])
        alice.nick("tmp")
        bob.nick("alice")
        alice.nick("bob")
        self.assertEqual(self.hand_of(alice), before[alice])
        self.assertEqual(self.hand_of(bob), before[bob])
        self.assertEqual(bot.stop(), 0)


if __name__ == "__main__":
    harness.main()
