"""Channels from chat, through the real bot and a real InspIRCd (with its
botmode module: BOT=B in RPL_ISUPPORT).

- invites = "ops": a channel operator of #games invites the bot; it asks
  the server who they are (WHOIS, without joining) and joins. A member
  without op invites it to #other (ngIRCd, which lets members invite):
  refused, told by NOTICE, not joined.
- The bot marks itself as a bot (MODE +B: WHOIS shows 335), and its
  realname names the admin contact.
- The channel it was invited to is remembered: after a restart the bot
  joins it again with the configured one.
- !part: a member of #hearts is refused and told; an operator of #games
  (where it was invited) sends it away: goodbye, PART, forgotten.
- SIGHUP with #old taken out of the config and #new put in: the bot
  joins #new, says goodbye in #old and leaves it; the invited #games and
  the still configured #hearts stay.
- invites = "admins": an admin (by mask) invites it and it joins; a
  channel operator who is no admin is refused.
Run: /usr/bin/python3 tests/integration/test_irc_invites.py -v
"""

import json
import os
import signal
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import HarnessTestCase  # noqa: E402

FAST_IRC = {"flood_burst": 100, "flood_interval_ms": 100}


class InviteTest(HarnessTestCase):

    def test_op_invite_joins_and_is_remembered(self):
        server = self.inspircd(modules=("botmode",))
        alice = self.client(server, "alice")
        alice.join("#games")          # the first in: op
        data = os.path.join(self.tmpdir, "data")
        irc = dict(FAST_IRC, invites="ops", admin_contact="ops@example.org")
        bot = self.bot(harness.bot_config(server.port, data, irc=irc))
        bot.wait_log(r"joined #hearts", timeout=20)

        # marked as a bot, the admin contact in its realname
        bot.wait_log(r"user mode \+B", timeout=10)
        whois = alice.whois("heartsbot")
        self.assertTrue(any(m.command == "335" for m in whois),
                        [str(m) for m in whois])
        real = [m for m in whois if m.command == "311"][0].params[-1]
        self.assertIn("(admin: ops@example.org)", real)

        # an op's invite: WHOIS, then JOIN
        mark = alice.mark()
        alice.send_raw("INVITE heartsbot #games")
        alice.wait_join("heartsbot", "#games", since=mark, timeout=20)
        bot.wait_log(r"invited to #games by alice \(a channel operator "
                     r"there\): joining", timeout=5)

        path = os.path.join(data, "local", "irc-channels.json")
        with open(path, encoding="utf-8") as f:
            self.assertEqual(json.load(f),
                             {"version": 1, "channels": ["#games"]})
        self.assertEqual(bot.stop(), 0)

        # a restart joins it again
        mark = alice.mark()
        bot = self.bot(harness.bot_config(server.port, data, irc=irc),
                       name="heartsbot2")
        alice.wait_join("heartsbot", "#games", since=mark, timeout=30)
        self.assertEqual(bot.stop(), 0)

    def test_member_invite_refused_and_told(self):
        # InspIRCd lets only ops invite; ngIRCd lets any member invite to
        # a channel that is not +i
        server = self.ngircd()
        bob = self.client(server, "bob")
        bob.join("#other")
        carol = self.client(server, "carol")
        carol.join("#other")          # a member, no op
        data = os.path.join(self.tmpdir, "data")
        irc = dict(FAST_IRC, invites="ops")
        bot = self.bot(harness.bot_config(server.port, data, irc=irc))
        bot.wait_log(r"joined #hearts", timeout=20)
        mark = carol.mark()
        carol.send_raw("INVITE heartsbot #other")
        m = carol.wait_for(command="NOTICE", frm="heartsbot",
                           match=r"#other", since=mark, timeout=20)
        self.assertIn("operator", m.text)
        bot.wait_log(r"invite to #other from carol refused", timeout=5)
        self.assertIsNone(bob.find(command="JOIN", frm="heartsbot"))
        self.assertFalse(os.path.exists(
            os.path.join(data, "local", "irc-channels.json")))
        self.assertEqual(bot.stop(), 0)

    def test_part_by_operator(self):
        server = self.inspircd()
        alice = self.client(server, "alice")
        alice.join("#hearts")         # op of both
        alice.join("#games")
        carol = self.client(server, "carol")
        carol.join("#hearts")         # a member
        data = os.path.join(self.tmpdir, "data")
        # the default pacing: WHOIS weighs on a strict InspIRCd
        irc = {"invites": "ops"}
        bot = self.bot(harness.bot_config(server.port, data, irc=irc))
        bot.wait_log(r"joined #hearts", timeout=20)
        # a member may not send it away
        mark = carol.mark()
        carol.say("#hearts", "!part")
        m = carol.wait_for(command="NOTICE", frm="heartsbot",
                           match=r"operator", since=mark, timeout=20)
        self.assertIn("send me away", m.text)
        # an operator may, from a channel it was invited to
        mark = alice.mark()
        alice.send_raw("INVITE heartsbot #games")
        alice.wait_join("heartsbot", "#games", since=mark, timeout=20)
        mark = alice.mark()
        alice.say("#games", "!part")
        alice.wait_privmsg("heartsbot", r"Goodbye! alice asked me",
                           to="#games", since=mark, timeout=20)
        alice.wait_for(command="PART", frm="heartsbot", since=mark,
                       timeout=20)
        bot.wait_log(r"leaving #games, asked by alice \(a channel "
                     r"operator\)", timeout=5)
        path = os.path.join(data, "local", "irc-channels.json")
        with open(path, encoding="utf-8") as f:
            self.assertEqual(json.load(f), {"version": 1, "channels": []})
        # still in #hearts: the member's !part changed nothing
        self.assertIsNone(carol.find(command="PART", frm="heartsbot"))
        self.assertEqual(bot.stop(), 0)

    def test_sighup_joins_and_leaves_configured_channels(self):
        server = self.ngircd()
        alice = self.client(server, "alice")
        for ch in ("#hearts", "#old", "#new", "#games"):
            alice.join(ch)            # op of each
        data = os.path.join(self.tmpdir, "data")
        irc = dict(FAST_IRC, invites="ops")
        cfg = harness.bot_config(server.port, data, irc=irc,
                                 channels=("#hearts", "#old"))
        bot = self.bot(cfg)
        bot.wait_log(r"joined #old", timeout=20)
        mark = alice.mark()
        alice.send_raw("INVITE heartsbot #games")
        alice.wait_join("heartsbot", "#games", since=mark, timeout=20)
        cfg["irc"][0]["channels"] = ["#hearts", "#new"]
        with open(bot.config_path, "w", encoding="utf-8") as f:
            f.write(harness.to_toml(cfg))
        mark = alice.mark()
        bot.signal(signal.SIGHUP)
        alice.wait_join("heartsbot", "#new", since=mark, timeout=20)
        alice.wait_for(command="PART", frm="heartsbot", to="#old",
                       since=mark, timeout=20)
        alice.wait_privmsg("heartsbot", r"out of my configuration",
                           to="#old", since=mark, timeout=5)
        # the invited channel and the one still configured stay
        self.assertIsNone(alice.find(command="PART", frm="heartsbot",
                                     to="#games", since=mark))
        self.assertIsNone(alice.find(command="PART", frm="heartsbot",
                                     to="#hearts", since=mark))
        self.assertEqual(bot.stop(), 0)

    def test_admins_only(self):
        server = self.inspircd()
        alice = self.client(server, "alice")
        alice.join("#games")          # op, no admin
        boss = self.client(server, "boss")
        boss.join("#boss")
        data = os.path.join(self.tmpdir, "data")
        irc = dict(FAST_IRC, invites="admins")
        bot = self.bot(harness.bot_config(server.port, data, irc=irc,
                                          bot={"admins": ["boss!*@*"]}))
        bot.wait_log(r"joined #hearts", timeout=20)
        mark = alice.mark()
        alice.send_raw("INVITE heartsbot #games")
        m = alice.wait_for(command="NOTICE", frm="heartsbot",
                           match=r"#games", since=mark, timeout=20)
        self.assertIn("people who run me", m.text)
        mark = boss.mark()
        boss.send_raw("INVITE heartsbot #boss")
        boss.wait_join("heartsbot", "#boss", since=mark, timeout=20)
        self.assertIsNone(alice.find(command="JOIN", frm="heartsbot"))
        self.assertNotIn("WHOIS", bot.log())
        self.assertEqual(bot.stop(), 0)


if __name__ == "__main__":
    unittest.main()
