"""Services accounts through the real bot, a real InspIRCd (account-tag,
extended-join, account-notify) and real services (Anope) linked to it.

- An account that logs out mid-game: alice sits down logged in to her
  account, logs out (services send ACCOUNT * to the bot) and plays on to
  the end; her result counts for the account (a:alice in the data).
- Two people swap nicks mid-game (alice -> tmp, bob -> alice, tmp -> bob):
  each keeps their own seat and hand, and the game is played to its end.
- Someone else's account behind a seated nick: alice (account alice)
  quits; mallory, logged in to another account, takes the nick "alice"
  from the same user@host. She is not alice: no private line of alice's
  reaches her; alice comes back from another host under her account, as
  alice_, and has her seat (the channel is told).
- The bot's admins named by account ("account:NAME") may stop any game.
Run: /usr/bin/python3 tests/integration/test_irc_accounts.py -v
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
GAME = {"turn_timeout": 30, "grace_period": 60, "next_hand_delay": 0}


def data_has(root, text):
    for d, _, files in os.walk(root):
        for name in files:
            try:
                with open(os.path.join(d, name), encoding="utf-8",
                          errors="replace") as f:
                    if text in f.read():
                        return True
            except OSError:
                pass
    return False


class AccountsTest(HarnessTestCase):

    def setUp(self):
        super().setUp()
        # flood limits are not what this file is about: the scripted
        # people answer at once (test_tls_bot.py plays on Debian's class)
        self.server = self.inspircd(services=True, strict=False,
                                    threshold=1000, commandrate=100000)
        self.data = os.path.join(self.tmpdir, "data")

    def start_bot(self, bot=None):
        b = self.bot(harness.bot_config(
            self.server.port, self.data, irc=FAST_IRC, game=GAME,
            bot=dict({"colors": False}, **(bot or {}))))
        b.wait_log(r"joined #hearts", timeout=30)
        return b

    def person(self, nick, password=None, user=None):
        """A client in #hearts, logged in to the account `nick` (made now)
        if a password is given."""
        if password:
            self.account(self.server, nick, password)
        c = self.client(self.server, nick, user=user or nick)
        if password:
            c.ns_identify(password)
        c.join("#hearts")
        return c

    def open_table(self, opener, others, rules="standard hands=1"):
        opener.wait_member("heartsbot", "#hearts", timeout=20)
        opener.say("#hearts", "!hearts " + rules)
        opener.wait_privmsg("heartsbot", r"opens a Hearts table",
                            to="#hearts")
        for o in others:
            o.say("#hearts", "!join")
            opener.wait_privmsg("heartsbot", r"^%s sits down" % o.nick(),
                                to="#hearts")
        mark = opener.mark()
        opener.say("#hearts", "!start")
        return mark

    def game_over(self, watcher, since):
        def done():
            return any(re.search(r"Game over!",
                                 m.text)
                       for m in watcher.privmsgs_from("heartsbot", "#hearts",
                                                      since=since))
        return done

    def test_logout_mid_game_keeps_the_seat_and_the_account(self):
        self.start_bot()
        alice = self.person("alice", "pw-alice-1")
        bob = self.person("bob")
        mark = self.open_table(alice, [bob])
        alice.wait_privmsg("heartsbot", r"Your cards", timeout=15)
        alice.ns_logout()
        pa, pb = Player(alice), Player(bob)
        play_game([pa, pb], self.game_over(alice, mark), timeout=180)
        # her result counts for the account she sat down with
        self.assertTrue(data_has(self.data, "a:alice"))
        self.assertFalse(data_has(self.data, "n:alice"))

    def test_two_people_swap_nicks_mid_game(self):
        self.start_bot()
        alice = self.person("alice", "pw-alice-2")
        bob = self.person("bob", "pw-bob-2")
        mark = self.open_table(alice, [bob])
        alice.wait_privmsg("heartsbot", r"Your cards", timeout=15)
        bob.wait_privmsg("heartsbot", r"Your cards", timeout=15)
        alice.nick("swaptmp")
        bob.nick("alice")
        alice.nick("bob")
        time.sleep(0.5)
        # each person asks for their hand: it is the one they were dealt
        pa, pb = Player(alice), Player(bob)
        play_game([pa, pb], self.game_over(alice, mark), timeout=180)
        self.assertTrue(data_has(self.data, "a:alice"))
        self.assertTrue(data_has(self.data, "a:bob"))

    def test_another_account_behind_a_seated_nick_is_someone_else(self):
        self.start_bot()
        self.account(self.server, "mallory", "pw-mallory")
        alice = self.person("alice", "pw-alice-3", user="shared")
        bob = self.person("bob")
        self.open_table(alice, [bob])
        alice.wait_privmsg("heartsbot", r"Your cards", timeout=15)
        alice.quit("brb")
        # same user@host, the nick alice, but mallory's account
        mallory = self.client(self.server, "alice", user="shared")
        mallory.ns_identify("pw-mallory", account="mallory")
        mallory.join("#hearts")
        mark = mallory.mark()
        mallory.say("heartsbot", "hand")
        mallory.say("#hearts", "!status")
        time.sleep(3)
        private = [m for m in mallory.privmsgs_from("heartsbot", since=mark)
                   if not harness.is_channel(m.target)]
        for m in private:
            self.assertNotRegex(m.text, r"Your cards|Your hand|your turn",
                                m.raw)
        # alice comes back from another host, logged in to her account,
        # as alice_ (mallory has "alice"): the seat is hers again
        mark = bob.mark()
        alice2 = self.client(self.server, "alice_", user="elsewhere")
        alice2.ns_identify("pw-alice-3", account="alice")
        alice2.join("#hearts")
        bob.wait_privmsg("heartsbot", r"^alice is back as alice_",
                         to="#hearts", since=mark, timeout=10)
        mark = alice2.mark()
        alice2.say("heartsbot", "hand")
        alice2.wait_privmsg("heartsbot", r"^Your hand: ", since=mark)

    def test_admin_named_by_account(self):
        self.start_bot(bot={"admins": ["account:boss"]})
        self.account(self.server, "boss", "pw-boss")
        alice = self.person("alice")
        bob = self.person("bob")
        self.open_table(alice, [bob])
        alice.wait_privmsg("heartsbot", r"Your cards", timeout=15)
        # the admin's nick is nothing like the account
        boss = self.client(self.server, "someone", user="boss")
        boss.ns_identify("pw-boss", account="boss")
        boss.join("#hearts")
        mark = alice.mark()
        boss.say("#hearts", "!stop")
        alice.wait_privmsg("heartsbot", r"(?i)stop|ended|over",
                           to="#hearts", since=mark, timeout=15)


if __name__ == "__main__":
    unittest.main()
