"""Writes the hand-made seeds of the fuzz corpora (tests/fuzz/corpus/NAME/
hand-*): valid inputs, and hostile ones aimed at each parser's checks.
The other files there (found-*) are inputs libFuzzer found, kept as they
are. Run it from anywhere after changing a seed here:
/usr/bin/python3 tests/fuzz/make_seeds.py
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(HERE, "corpus")


def write(target, name, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    elif not isinstance(data, bytes):
        data = json.dumps(data, ensure_ascii=False).encode("utf-8")
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "hand-" + name), "wb") as f:
        f.write(data)


# ---- irc_line: what an IRC server sends (adapters/irc/line.c) -----------

def irc_line_seeds():
    w = lambda n, lines, end="\r\n": write(  # noqa: E731
        "irc_line", n, end.join(lines) + end)
    isupport = ":irc.test 005 bot " + " ".join(
        "TOKEN%d=%d" % (i, i) for i in range(13)) + \
        " :are supported by this server"
    w("session", [
        ":irc.test NOTICE * :*** Looking up your hostname...",
        ":irc.test CAP * LS :sasl=PLAIN,EXTERNAL account-tag extended-join",
        ":irc.test CAP bot ACK :sasl account-tag",
        "AUTHENTICATE +",
        ":irc.test 900 bot bot!u@h alice :You are now logged in as alice",
        ":irc.test 903 bot :SASL authentication successful",
        ":irc.test 001 bot :Welcome to the Test IRC Network bot!u@h",
        ":irc.test 004 bot irc.test ngircd-26 abBcCFiIoqrRswx abehiIklmMnoOP",
        ":irc.test 005 bot CASEMAPPING=ascii CHANTYPES=#& NICKLEN=30 "
        ":are supported by this server", isupport,
        ":irc.test 376 bot :End of MOTD command",
        ":bot!u@h JOIN #hearts * :Real Name",
        ":irc.test 353 bot = #hearts :bot @alice",
        "PING :irc.test",
        "@time=2024-05-01T12:00:00.000Z;account=alice "
        ":alice!a@h PRIVMSG #hearts :!hearts play 2C",
        "@account=bob;msgid=abc :bob!b@h PRIVMSG bot :\x01VERSION\x01",
        ":carol!c@h PRIVMSG #hearts :\x01ACTION shuffles\x01",
        ":alice!a@h NICK :alice2", ":bob!b@h ACCOUNT *",
        ":dave!d@h KICK #hearts bot :bye", ":e!e@h QUIT :Quit: gone",
        ":f!f@h AWAY", ":f!f@h AWAY :lunch",
        ":irc.test 433 * bot :Nickname is already in use",
    ])
    w("lf-only", ["PING :a", ":s 001 me :hi", ":n!u@h PRIVMSG #c :x"], "\n")
    w("cr-only", ["PING :a", ":s 001 me :hi", ":n!u@h PRIVMSG #c :x"], "\r")
    w("isupport-many", [isupport, ":s 005 me " + " ".join(
        "K%d=" % i + "v" * 150 for i in range(14)) + " :are supported"])
    # the shapes that crash or stall libircclient 1.9
    w("nick-no-prefix", ["NICK x"])
    w("numeric-000", ["000 me :hi", ":s 000 me"])
    w("notice-one-param", [":s NOTICE me", "NOTICE"])
    w("prefix-only", [":foo", ":foo   "])
    w("numeric-bare", ["001", ":s 001"])
    w("empty-lines", ["", "", "PING :x", "", ""])
    w("lone-ctcp", [":n!u@h PRIVMSG #c :\x01", ":n!u@h NOTICE me :\x01"])
    w("ctcp-dcc", [":n!u@h PRIVMSG me :\x01DCC SEND f 2130706433 1 2\x01",
                   ":n!u@h PRIVMSG me :\x01dcc chat chat 1 2\x01"])
    w("eleven-params", [":s 004 me a b c d e f g h i j k :last",
                        "CMD 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15",
                        "CMD 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16"])
    w("over-libircclient-buffer", [":n!u@h PRIVMSG #c :" + "x" * 1100,
                                   ":n!u@h PRIVMSG #c :" + "\u2665" * 400,
                                   ":" + "p" * 1100 + " PRIVMSG #c :hi"])
    # a head that leaves room for one byte of text: a cut must not leave
    # a lone \x01 (heads of 995 to 999 bytes)
    w("cut-lone-ctcp", [":" + "p" * (983 + i) + " PRIVMSG #c :\x01ACTION x\x01"
                        for i in range(5)])
    w("tags", ["@a=b :x PRIVMSG #c :hi",
               "@account=a\\:b\\s\\\\c\\;+account=x;time=\\ "
               ":n!u@h PRIVMSG #c :hi", "@account=;time :n!u@h JOIN #c",
               "@;;=;a== PING x", "@ PING x", "@a=b", "@a=b :x"])
    w("ping-cr", ["PING :abc\rdef", "PING :x\r\rPONG"])
    w("person-no-prefix", ["PRIVMSG #c :hi", "JOIN #c", "KICK #c x", "AWAY"])
    w("too-few", [":n!u@h PRIVMSG #c", ":n!u@h KICK #c", "PING", "CAP *",
                  "AUTHENTICATE", ":n!u@h ACCOUNT"])
    w("bad-commands", ["12 x", "1234 x", "PRIV-MSG x", ": PRIVMSG #c :x"])
    write("irc_line", "nul", b"PING a\x00b\r\n\x00\r\n:s 001 me :ok\r\n")
    write("irc_line", "invalid-utf8",
          b":n\xffx!u@h PRIVMSG #c\xc3 :\xe2\x82 \xf0\x80\x80\x80 "
          b"\xed\xa0\x80 \xf4\x90\x80\x80 \x80\r\n"
          b":n!u@h PRIVMSG #c :" + b"\xff" * 2900 + b"\r\n")
    write("irc_line", "overlong",
          b"PING a\r\n" + b"y" * 9000 + b"\r\nPING b\r\n" +
          b"z" * 8701 + b"\r\n")
    write("irc_line", "unfinished", b"PING a\r\n:s 001 me :no end")
    write("irc_line", "empty", b"")


# ---- matrix_sync: /sync bodies (and m.direct maps) ----------------------

def message(body, sender="@alice:hs", eid="$e1", msgtype="m.text"):
    return {"type": "m.room.message", "sender": sender, "event_id": eid,
            "origin_server_ts": 1, "content": {"msgtype": msgtype,
                                               "body": body}}


def member(user, membership, sender=None):
    return {"type": "m.room.member", "sender": sender or user,
            "state_key": user, "event_id": "$m" + membership,
            "origin_server_ts": 1, "content": {"membership": membership,
                                               "displayname": "Alice"}}


def joined(room, events, state=()):
    return {"next_batch": "s2", "rooms": {"join": {room: {
        "state": {"events": list(state)},
        "timeline": {"events": list(events), "limited": False}}}}}


def sync_seeds():
    w = lambda n, d: write("matrix_sync", n, d)  # noqa: E731
    w("empty-batch.json", {"next_batch": "s1"})
    w("message.json", joined("!r:hs", [message("!hearts")]))
    w("notice-multiline.json", joined("!r:hs", [
        message("line one\nline two\r\nthree", msgtype="m.notice")]))
    w("messages-several.json", joined("!r:hs", [
        message("!join", "@bob:hs", "$1"), message("play 2C", "@c:hs", "$2"),
        message("pass QS AH KH", "@d:hs", "$3")]))
    w("members.json", joined("!r:hs", [
        member("@bob:hs", "join"), member("@bob:hs", "leave"),
        member("@c:hs", "ban", "@alice:hs"),
        member("@d:hs", "leave", "@alice:hs")],
        [member("@alice:hs", "join")]))
    w("invite-direct.json", {"next_batch": "s3", "rooms": {"invite": {
        "!dm:hs": {"invite_state": {"events": [
            {"type": "m.room.member", "sender": "@alice:hs",
             "state_key": "@bot:hs",
             "content": {"membership": "invite", "is_direct": True}}]}}}}})
    w("left.json", {"next_batch": "s4", "rooms": {"leave": {
        "!gone:hs": {"timeline": {"events": []}}}}})
    w("account-data-direct.json", {"next_batch": "s5", "account_data": {
        "events": [{"type": "m.direct", "content": {
            "@alice:hs": ["!dm1:hs", "!dm2:hs"], "@bob:hs": ["!dm3:hs"]}}]}})
    w("direct-map.json", {"@a:hs": ["!1:hs", "!2:hs"], "@b:hs": "!3",
                          "bad": ["!4:hs"], "@c:hs": [7, None, "x"]})
    w("encrypted.json", joined("!r:hs", [
        {"type": "m.room.encrypted", "sender": "@alice:hs",
         "event_id": "$x", "content": {"algorithm": "m.megolm.v1.aes-sha2",
                                       "ciphertext": "AAAA"}}]))
    w("unicode-body.json", joined("!r:hs", [message("play 10\u2665 \u263a")]))
    w("own-message.json", joined("!r:hs", [message("hi", "@bot:hs")]))
    # hostile: the whole body refused
    w("not-json", b"\xff\x00 not json")
    w("empty", b"")
    w("object-empty.json", b"{}")
    w("batch-number.json", b'{"next_batch": 7}')
    w("batch-empty.json", b'{"next_batch": ""}')
    w("batch-nul.json", b'{"next_batch": "a\\u0000b"}')
    w("batch-newline.json", b'{"next_batch": "a\\nb"}')
    w("trailing.json", b'{"next_batch": "s1"} trailing')
    w("truncated.json", b'{"next_batch": "s1", "rooms": {"join": {"!r:hs')
    w("bad-utf8.json", b'{"next_batch": "\xff"}')
    w("surrogate.json", b'{"next_batch": "\xed\xa0\x80"}')
    w("escaped-surrogate.json", b'{"next_batch": "\\ud800x"}')
    w("deep.json", b'{"next_batch": "s", "x": ' + b"[" * 5000)
    w("long-batch.json", {"next_batch": "a" * 2000})
    w("array.json", b"[1, 2, 3]")
    # hostile: events refused field by field, sections of the wrong type
    w("wrong-sections.json", {"next_batch": "s", "rooms": {
        "join": [], "invite": 1, "leave": "x"}, "account_data": []})
    w("room-not-object.json", {"next_batch": "s", "rooms": {"join": {
        "!r:hs": [], "!q:hs": {"timeline": {"events": {}}}}}})
    w("bad-ids.json", joined("not-a-room", [message("x", "alice")]))
    w("bad-event-fields.json", joined("!r:hs", [
        {"type": "m.room.message", "sender": "@a:hs"},
        {"type": "m.room.message", "sender": 7, "event_id": "$1",
         "content": {"body": 7, "msgtype": None}},
        {"type": "m.room.member", "sender": "@a:hs", "state_key": 1,
         "content": {"membership": []}},
        7, None, "x", [], {}]))
    w("body-invalid-utf8.json",
      b'{"next_batch":"x","rooms":{"join":{"!r:hs":{"timeline":{"events":'
      b'[{"type":"m.room.message","sender":"@alice:hs","event_id":"$z",'
      b'"origin_server_ts":1,"content":{"msgtype":"m.text",'
      b'"body":"!hearts \xff\xfe"}}, 7, null]}}}}}')
    w("body-nul.json", joined("!r:hs", [message("play\u00002C")]))
    w("body-long.json", joined("!r:hs", [message("x" * 5000)]))
    w("sender-long.json", joined("!r:hs", [
        message("x", "@" + "a" * 300 + ":hs")]))
    w("room-id-space.json", joined("!r oom:hs", [message("x")]))
    w("duplicate-keys.json",
      b'{"next_batch":"a","next_batch":"b","rooms":{"join":{"!r:hs":{},'
      b'"!r:hs":{"timeline":{"events":[]}}}}}')
    w("invite-hostile.json", {"next_batch": "s", "rooms": {"invite": {
        "!dm:hs": {"invite_state": {"events": [
            {"type": "m.room.member", "sender": 1, "state_key": "@bot:hs",
             "content": {"membership": "invite", "is_direct": "yes"}},
            {"type": "m.room.member"}, None]}},
        "!x:hs": {"invite_state": []}}}})
    w("direct-hostile.json", {"next_batch": "s", "account_data": {
        "events": [{"type": "m.direct", "content": {
            "@a:hs": "!1:hs", "x": ["!2:hs"], "@b:hs": [1, {}, "bad"]}},
            {"type": "m.direct", "content": []}, {"type": 7}]}})


# ---- matrix_txn: application-service transactions ------------------------

def in_room(room, ev):
    ev = dict(ev)
    ev["room_id"] = room
    return ev


def txn_seeds():
    w = lambda n, d: write("matrix_txn", n, d)  # noqa: E731
    w("empty.json", {"events": []})
    w("message.json", {"events": [in_room("!r:hs", message("!hearts"))]})
    w("game.json", {"events": [
        in_room("!r:hs", message("!join", "@bob:hs", "$1")),
        in_room("!dm:hs", message("play 2C", "@c:hs", "$2")),
        in_room("!r:hs", member("@d:hs", "join")),
        in_room("!r:hs", member("@d:hs", "leave", "@alice:hs"))]})
    w("own-membership.json", {"events": [
        in_room("!dm:hs", {"type": "m.room.member", "sender": "@alice:hs",
                           "state_key": "@bot:hs", "event_id": "$i",
                           "content": {"membership": "invite",
                                       "is_direct": True},
                           "unsigned": {"invite_room_state": [
                               {"type": "m.room.encryption",
                                "state_key": "", "sender": "@alice:hs",
                                "content": {}}]}}),
        in_room("!dm:hs", member("@bot:hs", "join")),
        in_room("!r:hs", member("@bot:hs", "leave", "@alice:hs")),
        in_room("!q:hs", member("@bot:hs", "ban", "@alice:hs"))]})
    w("twice.json", {"events": [in_room("!r:hs", message("a", eid="$1")),
                                in_room("!r:hs", message("b", eid="$1"))]})
    w("state.json", {"events": [
        in_room("!r:hs", {"type": "m.room.name", "state_key": "",
                          "sender": "@a:hs", "event_id": "$n",
                          "content": {"name": "Card Club"}}),
        in_room("!r:hs", {"type": "m.room.create", "state_key": "",
                          "sender": "@bot:hs", "event_id": "$c",
                          "content": {}}),
        in_room("!r:hs", {"type": "m.room.encrypted", "sender": "@a:hs",
                          "event_id": "$x", "content": {}})]})
    w("ephemeral.json", {"events": [], "de.sorunome.msc2409.ephemeral": [
        {"type": "m.typing", "room_id": "!r:hs", "content": {}}]})
    # hostile
    w("not-json", b"\xff\x00 not json")
    w("empty", b"")
    w("no-events.json", {})
    w("events-object.json", {"events": {}})
    w("array.json", [{"events": []}])
    w("trailing.json", b'{"events": []} x')
    w("deep.json", b'{"events": ' + b"[" * 5000)
    w("bad-events.json", {"events": [
        7, None, "x", [], {}, {"room_id": 7},
        {"room_id": "not-a-room", "type": "m.room.message"},
        in_room("!r:hs", {"type": "m.room.message", "sender": "@a:hs"}),
        in_room("!r:hs", {"type": "m.room.member", "sender": "@a:hs",
                          "state_key": "@bot:hs",
                          "content": {"membership": 7}}),
        in_room("!r:hs", message("x" * 5000)),
        in_room("!r:hs", message("nul\u0000"))]})
    w("body-invalid-utf8.json",
      b'{"events":[{"room_id":"!r:hs","type":"m.room.message",'
      b'"sender":"@alice:hs","event_id":"$z","origin_server_ts":1,'
      b'"content":{"msgtype":"m.text","body":"!hearts \xff\xfe"}}]}')


# ---- journal: journal files (storage/journal.c) --------------------------

def journal_lines(record, hands=None):
    """A record's game as the journal writes it (docs/storage.md)."""
    seats = [{"nick": p, "id": p + "@host", "key": "n:" + p}
             for p in record["players"]]
    out = [{"format": "heartsbot-journal/1", "game": "0123456789abcdef",
            "network": "local", "room": "#hearts", "rules": "standard",
            "opened": 1732419000},
           {"seats": seats, "opener": 0}, {"start": True}]
    for h in record["hands"][:hands]:
        out.append({"dealer": h["dealer"], "deal": h["deal"],
                    "rest": h.get("rest", [])})
        for s, cards in enumerate(h.get("passed") or []):
            if cards:
                out.append({"pass": s, "cards": cards})
        for card in h["plays"]:
            out.append({"play": card})
    return [json.dumps(x, separators=(",", ":")) for x in out]


def journal_seeds():
    w = lambda n, lines: write("journal", n,  # noqa: E731
                               "\n".join(lines) + "\n")
    with open(os.path.join(REPO, "tests", "data", "records",
                           "standard.jsonl")) as f:
        record = json.loads(f.readline())
    full = journal_lines(record)
    w("game-whole.jsonl", full)
    w("game-one-hand.jsonl", journal_lines(record, 1))
    w("game-mid-trick.jsonl", full[:40])
    w("game-mid-pass.jsonl", full[:6])
    w("header-only.jsonl", full[:1])
    w("lobby.jsonl", full[:2])
    write("journal", "torn-last-line.jsonl",
          "\n".join(full[:30]) + "\n" + full[30][:9])
    w("blind.jsonl", full[:4] + ['{"blind":[[],["4D","9C","JC"],[],[]]}'])
    w("pass-blind.jsonl", full[:4] + ['{"pass":1,"blind":true}'])
    w("discard.jsonl", full[:4] + ['{"discard":["AH","2D"]}'])
    w("moon.jsonl", full[:20] + ['{"moon":"subtract"}', '{"moon":"add"}'])
    w("seats-computers.jsonl", [
        '{"seats":[{"nick":"alice","id":"alice@host","key":"n:alice"},'
        '{"nick":"bot1","level":1},null,{"nick":"x","level":3,'
        '"id":"x@h","key":"n:x","away":true,"autoplay":2}],"opener":0}'])
    # hostile
    w("play-not-held.jsonl", full[:4] + ['{"play":"2C"}'] * 3)
    w("play-bad-card.jsonl", full[:4] + ['{"play":"1X"}', '{"play":7}',
                                         '{"play":""}'])
    w("pass-bad.jsonl", full[:4] + [
        '{"pass":9,"cards":["QS"]}', '{"pass":-1,"cards":[]}',
        '{"pass":1,"cards":["QS","QS","QS"]}', '{"pass":"x"}'])
    w("deal-short.jsonl", full[:3] + ['{"dealer":0,"deal":[["2C"]],'
                                      '"rest":[]}'])
    w("deal-twice-a-card.jsonl", full[:3] + [
        '{"dealer":0,"deal":[["2C","2C"],["3C"],["4C"],["5C"]],"rest":[]}'])
    w("deal-dealer-out-of-range.jsonl", full[:3] + [
        full[3].replace('"dealer":0', '"dealer":99')])
    w("not-json.jsonl", ["{", "}", "[]", "null", "7", '"x"', "\xff\xfe"])
    w("unknown-version.jsonl",
      [full[0].replace("journal/1", "journal/9"), '{"what":1}'])
    w("empty-lines.jsonl", ["", "", full[2], ""])
    w("deep.jsonl", ["[" * 3000])
    w("long-line.jsonl", ['{"play":"' + "A" * 70000 + '"}'])
    w("nul-bytes.jsonl", ['{"play":"2\x00C"}', '\x00\x00'])
    w("seats-hostile.jsonl", [
        '{"seats":[1,{"nick":7},{"level":99},{"nick":"a","level":-1}],'
        '"opener":9}', '{"seats":{}}', '{"seats":[]}'])


# ---- config: config files (bot/config.c) ---------------------------------

def config_seeds():
    w = lambda n, d: write("config", n, d)  # noqa: E731
    with open(os.path.join(REPO, "config.example.toml"), "rb") as f:
        example = f.read()
    w("example.toml", example)
    w("empty.toml", b"")
    w("minimal.toml", '[bot]\ndata_dir = "/tmp/x"\n')
    w("irc.toml", '[bot]\ndata_dir = "d"\ncommand_prefix = "!"\n\n'
                  '[[irc]]\nname = "n"\nhost = "127.0.0.1"\nport = 6667\n'
                  'nick = "heartsbot"\nchannels = ["#hearts", '
                  '"&x omnibus target=50"]\nflood_burst = 5\n')
    w("matrix.toml", '[bot]\ndata_dir = "d"\n\n[[matrix]]\nname = "mx"\n'
                     'homeserver = "https://hs.example"\n'
                     'user_id = "@bot:hs.example"\npassword = "pw"\n'
                     'rooms = ["#hearts:hs.example", "!abc:hs.example"]\n'
                     'sync_timeout_ms = 30000\n')
    w("two-networks-same-name.toml",
      '[[irc]]\nname = "a"\nhost = "h"\nnick = "n"\n'
      '[[irc]]\nname = "a"\nhost = "h"\nnick = "m"\n')
    w("game.toml", '[game]\nturn_timeout = 5\nmax_timeouts = 100\n'
                   'lobby_timeout = 86400\ngrace_period = 0\n'
                   'next_hand_delay = 60\ndefault_rules = "standard"\n')
    # hostile
    w("out-of-range.toml", '[game]\nturn_timeout = 4\nmax_timeouts = 0\n'
                           'next_hand_delay = 61\n[[irc]]\nport = 70000\n')
    w("wrong-types.toml", '[bot]\ndata_dir = 7\nadmins = "x"\n'
                          '[game]\nturn_timeout = "ten"\n')
    w("nick-percent.toml", '[[irc]]\nname = "n"\nhost = "h"\n'
                           'nick = "a%n"\npassword = "%s%s"\n')
    w("channel-no-hash.toml", '[[irc]]\nname = "n"\nhost = "h"\nnick = "x"\n'
                              'channels = ["hearts", "#a b", "#a,b", ""]\n')
    w("unterminated.toml", '[bot]\ndata_dir = "abc\n')
    w("bad-utf8.toml", b'[bot]\ndata_dir = "\xff\xfe"\n')
    w("control-chars.toml", '[bot]\ndata_dir = "a\\u0001b"\n'
                            'command_prefix = "\\n"\n')
    w("duplicate-key.toml", '[bot]\ndata_dir = "a"\ndata_dir = "b"\n')
    w("duplicate-table.toml", '[bot]\n[bot]\n')
    w("unknown-key.toml", '[bot]\nno_such_key = 1\n[nope]\nx = 1\n')
    w("long-prefix.toml", '[bot]\ncommand_prefix = "123456789"\n')
    w("deep-inline.toml", "x = " + "[" * 3000 + "\n")
    w("long-string.toml", '[bot]\ndata_dir = "' + "a" * 20000 + '"\n')
    w("nul.toml", b'[bot]\ndata_dir = "a\x00b"\n')
    w("numbers.toml", '[game]\nturn_timeout = 0x10\nmax_timeouts = 1e3\n'
                      'lobby_timeout = 99999999999999999999\n'
                      'grace_period = -0\nnext_hand_delay = +5\n')
    w("array-of-tables-wrong.toml", 'irc = 7\n[irc]\nname = "x"\n')
    w("appservice.toml", '[[matrix]]\nname = "as"\nmode = "appservice"\n'
                         'homeserver = "http://127.0.0.1:8008"\n'
                         'user_id = "@heartsbot:hs.example"\n'
                         'registration = "reg/heartsbot.yaml"\n'
                         'listen = "[::1]:9009"\nrooms = ["#h:hs.example"]\n'
                         '[[matrix]]\nname = "as4"\nmode = "appservice"\n'
                         'homeserver = "https://hs.example"\n'
                         'user_id = "@b:hs.example"\n'
                         'registration = "/etc/heartsbot/as4.yaml"\n'
                         'listen = "10.1.2.3:65535"\n')
    w("appservice-hostile.toml",
      '[[matrix]]\nname = "as"\nmode = "appservice"\nhomeserver = "https://h"\n'
      'user_id = "@Bot:h"\npassword = "p"\nlisten = "[::1:9009"\n'
      '[[matrix]]\nname = "s"\nhomeserver = "https://h"\nuser_id = "@b:h"\n'
      'password = "p"\nregistration = "r"\nlisten = "localhost:0"\n'
      'mode = "pull"\n[[matrix]]\nlisten = "1.2.3.4:99999"\n'
      'registration = ""\nlisten = "[]:1"\n')
    w("matrix-hostile.toml", '[[matrix]]\nname = ""\nhomeserver = "ftp://x"\n'
                             'user_id = "bot"\nrooms = [1, "x"]\n'
                             'sync_timeout_ms = -1\n')


# ---- matrix_registration: appservice registrations -----------------------
# (adapters/matrix/registration.c)

def registration_seeds():
    w = lambda n, d: write("matrix_registration", n, d)  # noqa: E731
    tok = "0123456789abcdef" * 4
    w("written.yaml",
      '# heartsbot application service registration for [[matrix]] "mx"\n'
      '# Give this file to the homeserver (docs/hosting.md, "Matrix as an '
      'application service").\n'
      'id: "heartsbot-mx"\nurl: "http://127.0.0.1:9009"\n'
      'as_token: "%s"\nhs_token: "%s"\nsender_localpart: "heartsbot"\n'
      'rate_limited: false\nnamespaces:\n  users:\n    - exclusive: true\n'
      '      regex: "^@heartsbot:example\\\\.org$"\n  aliases: []\n'
      '  rooms: []\n' % (tok, tok[::-1]))
    w("synapse-doc.yaml",
      "# A unique, user-defined ID of the application service.\n"
      "id: heartsbot\n\n# Where the application service is located.\n"
      "url: http://localhost:9009\n"
      "as_token: wfghWEGh3wgWHEf3478sHFWE\n"
      "hs_token: ugw8243igya57aaABGFfgeyu\n"
      "sender_localpart: heartsbot\n"
      "namespaces:\n  users:\n    - exclusive: true\n"
      "      regex: '@heartsbot:.*'\n  aliases: []\n  rooms: []\n"
      "rate_limited: false\nprotocols: [\"hearts\"]\n"
      "receive_ephemeral: true\n")
    w("bridge-style.yaml",
      "---\r\nid: 'hearts'\r\nurl: ~\r\nas_token: 'a.b_c'\r\n"
      "hs_token: \"d~e+f/g=\"\r\nnamespaces:\r\n    users:\r\n"
      "    - exclusive: true\r\n      regex: ^@hb:h$\r\n"
      "sender_localpart: hb\r\n"
      "de.sorunome.msc2409.push_ephemeral: true\r\n"
      "extra: {a: [1, 'x'']',\r\nas_token: no, \"]\\\"\"\r\n  ]}\r\n"
      "protocols:\r\n- irc\r\n")
    # hostile
    good = "as_token: a\nhs_token: b\nsender_localpart: c\n"
    w("missing.yaml", "id: x\nas_token: a\n")
    w("repeated.yaml", "id: x\n" + good + "id: y\nurl: http://a\n"
                       "url: http://b\n")
    w("same-tokens.yaml", "id: x\nas_token: t\nhs_token: t\n"
                          "sender_localpart: c\n")
    w("yaml-types.yaml", "id: null\nas_token: 1234\nhs_token: yes\n"
                         "sender_localpart: ~\nurl: 1.5e3\n")
    w("yaml-features.yaml", "id: &a x\nas_token: *a\nhs_token: !!str b\n"
                            "sender_localpart: |\n  c\nurl: >\n  d\n")
    w("quotes.yaml", "id: \"a\\nb\"\nas_token: 'open\n"
                     "hs_token: \"x\" y\nsender_localpart: \"c\"#d\n")
    w("multiline.yaml", "id: x\n  y\n" + good + "extra: [a,\n  b\n")
    w("structure.yaml", "%YAML 1.2\n---\n- x\n? id\n: x\n\"id\": x\n"
                        "id:x\n---\n...\n")
    w("values.yaml", "id: ''\nas_token: \"a b\"\nhs_token: b%\n"
                     "sender_localpart: Bot\nurl: ftp://h\n")
    w("tab-indent.yaml", "id: x\n" + good + "namespaces:\n\tusers: []\n")
    w("bytes.yaml", b"id: a\x01b\r\nurl: a\rb\n\x7f\xc3\xa9\xff"
                    b"\xed\xa0\x80\xc2\x85\xe2\x80\xa8\x00\n")
    w("long-token.yaml", "id: x\nas_token: t" + "0" * 300 + "\n"
                         "hs_token: b\nsender_localpart: c\n")
    w("deep-flow.yaml", "extra: " + "[" * 3000 + "\n" + "id: x\n" + good)
    w("big.yaml", "id: x\n" + good + "#" * 70000 + "\n")
    w("empty", b"")


# ---- record: one record line (storage/record/record_read.c) -------------

def record_seeds():
    w = lambda n, d: write("record", n, d)  # noqa: E731
    rdir = os.path.join(REPO, "tests", "data", "records")
    for name in sorted(os.listdir(rdir)):
        with open(os.path.join(rdir, name), "rb") as f:
            for i, line in enumerate(f):
                if line.strip():
                    w("%s-%d.json" % (name.split(".")[0], i + 1),
                      line.rstrip(b"\n"))
    with open(os.path.join(rdir, "standard.jsonl")) as f:
        rec = json.loads(f.readline())
    one = dict(rec, hands=rec["hands"][:1])
    one.pop("totals", None)
    one.pop("winners", None)
    w("one-hand-unfinished.json", one)
    w("no-hands.json", dict(rec, hands=[]))
    w("options.json", dict(rec, options={"target": 50, "moon": "choice",
                                         "pass_cycle": "left,hold"}))
    w("three-players.json", dict(rec, players=rec["players"][:3]))
    w("bad-format.json", dict(rec, format="hearts-record/9"))
    w("bad-card.json", dict(rec, hands=[dict(rec["hands"][0],
                                             plays=["1X", "2C"])]))
    w("plays-wrong-type.json", dict(rec, hands=[dict(rec["hands"][0],
                                                     plays=7)]))
    w("names-hostile.json", dict(rec, players=["", "a\u0000b", "x" * 300,
                                               "\u263a"]))
    w("not-json", b"\xff\xfe{")
    w("deep.json", b"[" * 5000)
    w("empty", b"")


# ---- matrix_format: the bot's markup (bot/manager/render.h, CHAT_STYLE_MARKUP)

def format_seeds():
    w = lambda n, d: write("matrix_format", n, d)  # noqa: E731
    red = lambda t: "\x0304" + t + "\x0f"  # noqa: E731
    w("plain", "The game goes on after a restart: hand 1, alice to play.")
    w("lines", "line one\nline two\n\nline four")
    w("trick", "Trick 3: alice 7\u2663, bob K\u2663, carol " + red("2\u2665")
      + ", dave 9\u2663 - \x02\x01@bob:hs\x01bob\x01\x02 takes it "
      "(1 point)")
    w("prompt", "Your turn at !r:hs. Play one of: \u2663 2 8. Your hand: "
      "\u2663 \x052\x05 \x058\x05  " + red("\u2665 \x0510\x05 Q"))
    w("pill-notify", "\x01!@alice:hs\x01Alice\x01, your turn.")
    w("sheet", "hand\x1f  alice\x1f  bob\n   1\x1f      0\x1f   26\n"
      "total\x1f      0\x1f   26")
    w("mixed", "Hand 2 scores: \x02alice 0\x02, " + red("bob 26")
      + "\nnext\x1f  row")
    # hostile
    w("html-injection", "<script>alert(1)</script> & <b>x</b> \"'")
    w("unclosed-pill", "\x01@alice:hs\x01Alice")
    w("pill-bad-id", "\x01not an id\x01x\x01 \x01!\x01\x01\x01")
    w("pill-in-name", "\x01@a:hs\x01\x01@b:hs\x01b\x01\x01")
    w("unbalanced", "\x02bold \x05card \x0304red \x02\x05")
    w("colour-codes", "\x0399,99x\x03\x034\x0f\x0f\x0304,")
    w("controls", "".join(chr(c) for c in range(32)) + "\x7f")
    w("bad-utf8", b"caf\xc3 \xff\xfe \xed\xa0\x80 \xf4\x90\x80\x80")
    w("nul", b"a\x00b\x01@a:hs\x00\x01x\x01")
    w("many-mentions", "".join("\x01@u%d:hs\x01u%d\x01 " % (i, i)
                               for i in range(200)))
    w("many-rows", "\n".join("%d\x1f  %d" % (i, i) for i in range(500)))
    w("long", "\x05A\u2660\x05 " * 2000)
    w("empty", b"")


if __name__ == "__main__":
    irc_line_seeds()
    format_seeds()
    sync_seeds()
    txn_seeds()
    journal_seeds()
    config_seeds()
    registration_seeds()
    record_seeds()
