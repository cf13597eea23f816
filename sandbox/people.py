"""Simulated people and supergroups that a test scripts like a puppeteer.

A `SimUser` does what a Telegram user does with a bot: presses Start (optionally from a
deep link), writes in a group or in private, sends a sticker or a voice note, forwards,
edits, presses inline buttons and reads the alert, blocks the bot, joins by an invite
link. A `SimGroup` is a supergroup its owner administers: members come and go, get
promoted, and the bot is added, promoted, demoted or removed. Each action changes the
world the way Telegram would and queues the updates the bot would receive; anything a
real person could not do raises `SimulationError` at once, in the test.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from dataclasses import replace
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from sandbox.api_errors import SimulationError
from sandbox.formatting import FormattedText
from sandbox.world import (
    ANONYMOUS_ADMIN_ID,
    CHANNEL_BOT_ID,
    MEDIA_KINDS,
    SERVICE_ACCOUNT_ID,
    TOPIC_ICON_COLOR,
    Account,
    AdminRights,
    Button,
    CallbackAnswer,
    CallbackPress,
    Chat,
    Group,
    InviteLink,
    Membership,
    PrivateChat,
    SimMessage,
    World,
    media_payload,
)

_INVITE = re.compile(r"(?:https?://)?t\.me/(?:\+|joinchat/)([\w-]+)")
_BOT_LINK = re.compile(r"(?:https?://)?t\.me/(\w+)")
_START_PAYLOAD = re.compile(r"[A-Za-z0-9_-]{1,64}")
# Who `from` names in a message sent on behalf of a chat (Bot API: "a fake sender user").
ANONYMOUS_ADMIN = Account(ANONYMOUS_ADMIN_ID, "Group", username="GroupAnonymousBot", is_bot=True)
CHANNEL_BOT = Account(CHANNEL_BOT_ID, "Channel", username="Channel_Bot", is_bot=True)
SERVICE_ACCOUNT = Account(SERVICE_ACCOUNT_ID, "Telegram")


class SimUser(Account):
    """A person using Telegram."""

    def __init__(
        self,
        world: World,
        user_id: int,
        first_name: str,
        *,
        last_name: str | None = None,
        username: str | None = None,
        language_code: str | None = None,
    ):
        super().__init__(
            user_id,
            first_name,
            last_name=last_name,
            username=username,
            language_code=language_code,
        )
        self._world = world

    @property
    def private(self) -> PrivateChat:
        """This person's private chat with the bot."""
        return self._world.private_chat(self)

    # -- the private chat -----------------------------------------------------------------

    async def start_bot(self, payload: str | None = None) -> SimMessage:
        """Press Start (or Restart after blocking), as from `t.me/<bot>?start=<payload>`."""
        if self.blocked:
            self.blocked = False
            self._world.private_status_changed(self, blocked=False)
        self.started = True
        return self._post_text(self.private, f"/start {payload}" if payload else "/start")

    async def block_bot(self) -> None:
        """Block the bot: it may no longer write here, and learns so by my_chat_member."""
        if self.blocked:
            raise SimulationError(f"{self.first_name} has already blocked the bot")
        self.blocked = True
        if self.started:
            self._world.private_status_changed(self, blocked=True)

    def inbox(self) -> list[SimMessage]:
        """The bot's messages in this person's private chat that still exist."""
        return [m for m in self.private.visible_messages() if m.from_bot and not m.service]

    def answers(self) -> list[CallbackAnswer]:
        """Every answer the bot gave to this person's button presses, oldest first."""
        presses = [p for p in self._world.queries.values() if p.user is self]
        return [p.answer for p in presses if p.answer is not None]

    # -- writing --------------------------------------------------------------------------

    async def send(
        self,
        chat: Chat,
        text: str,
        *,
        reply_to: SimMessage | None = None,
        topic: int | None = None,
    ) -> SimMessage:
        """Write `text` in a group or in the private chat with the bot; in a forum, in
        the topic `topic` (a message_thread_id) or, by default, in General."""
        self._check_can_write(chat)
        if reply_to is not None:
            self._check_sees(reply_to)
            if reply_to.chat is not chat:
                raise SimulationError("a reply must be in the same chat as the message")
        thread, reply_to = _placed(chat, topic, reply_to)
        return self._post_text(chat, text, reply_to=reply_to, thread=thread)

    async def send_as_group(
        self, group: Group, text: str, *, topic: int | None = None
    ) -> SimMessage:
        """Write as an anonymous administrator: on behalf of the group itself."""
        self._check_can_write(group)
        if not group.member(self).is_admin:
            raise SimulationError(f"{self.first_name} is not an administrator of {group.title}")
        return self._on_behalf(group, ANONYMOUS_ADMIN, group.to_api(), text, topic)

    async def send_as_channel(
        self, group: Group, channel: dict[str, Any], text: str, *, topic: int | None = None
    ) -> SimMessage:
        """Write on behalf of a channel one owns (`channel` is its Chat object)."""
        self._check_can_write(group)
        if channel.get("type") != "channel":
            raise SimulationError("one can post on behalf of a channel only")
        return self._on_behalf(group, CHANNEL_BOT, channel, text, topic)

    def _on_behalf(
        self,
        group: Group,
        fake: Account,
        chat: dict[str, Any],
        text: str,
        topic: int | None,
    ) -> SimMessage:
        formatted = self._typed(text)
        thread, reply_to = _placed(group, topic, None)
        message = self._world.post(
            group,
            fake,
            text=formatted.text,
            entities=formatted.entities,
            reply_to=reply_to,
            sender_chat=chat,
            thread_id=thread,
        )
        self._world.deliver(message)
        return message

    async def send_command(self, chat: Chat, command: str, args: str = "") -> SimMessage:
        """A command as Telegram's command menu sends it: `/cmd@bot` in a group."""
        name = command.removeprefix("/")
        if isinstance(chat, Group):
            name = f"{name}@{self._world.bot.username}"
        return await self.send(chat, f"/{name} {args}".rstrip())

    async def send_media(
        self,
        chat: Chat,
        kind: str,
        *,
        caption: str | None = None,
        data: bytes = b"\x00",
        filename: str | None = None,
        emoji: str | None = None,
    ) -> SimMessage:
        """A photo, document, voice note, video note, sticker, video, audio or animation."""
        if kind not in MEDIA_KINDS:
            raise SimulationError(f"unknown media kind {kind!r}; one of {MEDIA_KINDS}")
        if caption is not None and kind in ("sticker", "video_note"):
            raise SimulationError(f"a {kind} has no caption")
        self._check_can_write(chat)
        stored = self._world.store_file(kind, data, filename, None)
        formatted = FormattedText.plain(caption) if caption else FormattedText("")
        message = self._world.post(
            chat,
            self,
            media_kind=kind,
            file=stored,
            media=media_payload(kind, stored, emoji=emoji or ("🙂" if kind == "sticker" else None)),
            caption=formatted.text or None,
            caption_entities=formatted.entities,
        )
        self._world.deliver(message)
        return message

    async def send_content(
        self, chat: Chat, kind: str, payload: Any, *, via_bot: Account | None = None
    ) -> SimMessage:
        """A message of any other kind, by its Bot API field and object: a live photo, a
        checklist, paid media, a giveaway, a game or an invoice sent through an inline bot
        (`via_bot`), or a kind Telegram adds next. The shape is the test's to give."""
        if kind in MEDIA_KINDS or kind in ("text", "caption"):
            raise SimulationError(f"use send() or send_media() for a {kind}")
        if via_bot is not None and not via_bot.is_bot:
            raise SimulationError("only a bot sends messages inline")
        self._check_can_write(chat)
        message = self._world.post(chat, self, extra={kind: payload}, via_bot=via_bot)
        self._world.deliver(message)
        return message

    async def edit(self, message: SimMessage, text: str) -> SimMessage:
        """Edit one's own text message, or a media message's caption; the bot gets an
        edited_message with a new edit_date."""
        self._check_sees(message)
        if message.sender is not self or message.service:
            raise SimulationError(f"{self.first_name} can only edit their own messages")
        if message.text is not None:
            formatted = self._typed(text)
            message.text, message.entities = formatted.text, formatted.entities
        elif message.media_kind in ("sticker", "video_note", None):
            raise SimulationError(f"a {message.media_kind} has no caption to edit")
        else:
            formatted = FormattedText.plain(text) if text.strip() else FormattedText("")
            message.caption = formatted.text or None
            message.caption_entities = formatted.entities
        message.edit_date = self._world.now()
        self._world.deliver(message, edited=True)
        return message

    async def react(self, message: SimMessage, emoji: str = "👍") -> SimMessage:
        """Put a reaction on a message: the bot gets message_reaction if it asked for
        it, and, as Telegram does, the message again as an edited_message, unchanged and
        with no new edit_date (a phantom edit: nothing in it changed)."""
        self._check_sees(message)
        old = message.reactions.get(self.id)
        message.reactions[self.id] = emoji
        self._world.updates.push(
            "message_reaction",
            {
                "chat": message.chat.to_api(),
                "message_id": message.message_id,
                "user": self.to_api(),
                "date": self._world.now(),
                "old_reaction": [{"type": "emoji", "emoji": old}] if old else [],
                "new_reaction": [{"type": "emoji", "emoji": emoji}],
            },
        )
        self._world.deliver(message, edited=True)
        return message

    async def delete(self, message: SimMessage) -> None:
        """Delete one's own message. Telegram tells a bot nothing of it: a reply the bot
        makes to it afterwards is refused "message to be replied not found"."""
        self._check_sees(message)
        if message.sender is not self or message.service:
            raise SimulationError(f"{self.first_name} can only delete their own messages")
        message.deleted = True

    async def forward(self, message: SimMessage, to: Chat) -> SimMessage:
        """Forward a message; Telegram refuses for a message with protected content."""
        self._check_sees(message)
        if message.protect_content:
            raise SimulationError("this message has protected content and can't be forwarded")
        if message.service:
            raise SimulationError("a service message can't be forwarded")
        self._check_can_write(to)
        copy = self._world.post(to, self, **message.forwarded_content())
        self._world.deliver(copy)
        return copy

    # -- buttons and links ----------------------------------------------------------------

    async def press(self, message: SimMessage, button: str | int) -> CallbackPress:
        """Press a callback button (by text or position); the bot gets a callback_query."""
        return await self.press_seen(message, self._button(message, button))

    async def press_seen(self, message: SimMessage, chosen: Button) -> CallbackPress:
        """Press a button as the screen showed it a moment ago: the press crossed the
        bot's edit that took the keyboard off, as happens on a slow connection."""
        self._check_sees(message)
        if chosen.callback_data is None:
            raise SimulationError(
                f"button {chosen.text!r} is not a callback button; use follow() for links"
            )
        press = CallbackPress(self._world.new_query_id(), self, message, chosen.callback_data)
        self._world.queries[press.id] = press
        self._world.updates.push(
            "callback_query",
            {
                "id": press.id,
                "from": self.to_api(),
                "message": message.to_api(),
                "chat_instance": self._world.chat_instance(message.chat),
                "data": press.data,
            },
        )
        return press

    async def follow(self, message: SimMessage, button: str | int) -> SimMessage:
        """Press a URL button: a deep link to the bot or an invite link (see open_link)."""
        chosen = self._button(message, button)
        if chosen.url is None:
            raise SimulationError(f"button {chosen.text!r} has no URL; use press()")
        return await self.open_link(chosen.url)

    def open_web_app(self, message: SimMessage, button: str | int) -> str:
        """Press a Mini App button: the address Telegram opens in its web view.

        Telegram appends the launch data after `#`: `tgWebAppData` is the initData it
        signs with the bot's token (HMAC-SHA256 keyed by HMAC("WebAppData", token)),
        and a page reads it from there or from telegram-web-app.js.
        """
        self._check_sees(message)
        chosen = self._button(message, button)
        if chosen.web_app is None:
            raise SimulationError(f"button {chosen.text!r} is not a Mini App button")
        return self.launch_web_app(chosen.web_app, message.chat)

    def launch_web_app(self, url: str, chat: Chat) -> str:
        """`url` as Telegram opens it for this person from a button in `chat`."""
        user = {"id": self.id, "first_name": self.first_name, "allows_write_to_pm": True}
        if self.username:
            user["username"] = self.username
        if self.language_code:
            user["language_code"] = self.language_code
        fields = {
            "user": json.dumps(user, ensure_ascii=False, separators=(",", ":")),
            "chat_instance": str(self._world.chat_instance(chat)),
            "chat_type": "sender",
            "auth_date": str(self._world.now()),
        }
        check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
        key = hmac.new(b"WebAppData", self._world.bot_token.encode(), hashlib.sha256).digest()
        fields["hash"] = hmac.new(key, check.encode(), hashlib.sha256).hexdigest()
        launch = urlencode({"tgWebAppData": urlencode(fields), "tgWebAppVersion": "9.0"})
        return f"{url}#{launch}"

    async def open_link(self, url: str) -> SimMessage:
        """Open a t.me link: `?start=` starts the bot, `+code` joins a group.

        Returns the /start message, or the "joined" service message.
        """
        invite = _INVITE.fullmatch(url)
        if invite:
            return await self.join_by_link(url)
        parts = urlsplit(url if "://" in url else f"https://{url}")
        target = _BOT_LINK.fullmatch(f"t.me{parts.path}") if parts.netloc == "t.me" else None
        if target is None or target.group(1).lower() != (self._world.bot.username or "").lower():
            raise SimulationError(f"the sandbox can't open {url!r}")
        payload = parse_qs(parts.query).get("start", [None])[0]
        if payload is not None and not _START_PAYLOAD.fullmatch(payload):
            # Telegram passes only up to 64 of A-Za-z0-9_- (Bot API, deep linking).
            raise SimulationError(f"Telegram would not pass the start parameter {payload!r}")
        return await self.start_bot(payload)

    async def join_by_link(self, url: str) -> SimMessage:
        link, group = self._find_invite(url)
        standing = group.member(self)
        if standing.status == "kicked" and (
            not standing.until_date or self._world.now() < standing.until_date
        ):
            # Telegram lifts a ban with an end by itself once it ends (banChatMember).
            raise SimulationError(f"{self.first_name} is banned in {group.title}")
        if standing.is_member:
            raise SimulationError(f"{self.first_name} is already in {group.title}")
        if link.is_revoked or (
            link.expire_date is not None and link.expire_date <= self._world.now()
        ):
            raise SimulationError("the invite link has expired")
        still_in = sum(1 for m in group.member_list() if m.account.id in link.joined)
        if link.member_limit is not None and still_in >= link.member_limit:
            raise SimulationError("the invite link has reached its member limit")
        if link.creates_join_request:
            raise SimulationError("join requests are not emulated by the sandbox")
        link.joined.add(self.id)
        new = Membership(self, "member")
        self._world.membership_changed(group, standing, new, self, invite_link=link)
        return self._world.service_message(group, self, new_chat_members=[self])

    async def leave(self, group: Group) -> None:
        standing = group.member(self)
        if not standing.is_member:
            raise SimulationError(f"{self.first_name} is not in {group.title}")
        if standing.status == "creator":
            raise SimulationError("the owner of a group can't leave it in the sandbox")
        self._world.membership_changed(group, standing, Membership(self, "left"), self)
        self._world.service_message(group, self, left_chat_member=self)

    # -- rules of what a person can do ----------------------------------------------------

    def _find_invite(self, url: str) -> tuple[InviteLink, Group]:
        wanted = url if url.startswith("http") else f"https://{url}"
        for group in self._world.groups.values():
            link = group.invite_links.get(wanted)
            if link is not None:
                return link, group
        raise SimulationError(f"no such invite link: {url}")

    def _check_can_write(self, chat: Chat) -> None:
        if isinstance(chat, PrivateChat):
            if chat.user is not self:
                raise SimulationError(f"{self.first_name} can't write in another's private chat")
            if not self.started or self.blocked:
                raise SimulationError(
                    f"{self.first_name} must press Start (start_bot) before writing to the bot"
                )
        elif isinstance(chat, Group) and chat.migrated_to is not None:
            raise SimulationError(f"{chat.title} is now the supergroup {chat.migrated_to}")
        elif isinstance(chat, Group) and not chat.member(self).is_member:
            raise SimulationError(f"{self.first_name} is not a member of {chat.title}")
        elif isinstance(chat, Group) and chat.member(self).status == "restricted":
            raise SimulationError(f"{self.first_name} is muted in {chat.title}")

    def _button(self, message: SimMessage, which: str | int) -> Button:
        self._check_sees(message)
        try:
            return message.button(which)
        except LookupError as error:
            raise SimulationError(str(error)) from None

    def _check_sees(self, message: SimMessage) -> None:
        if message.deleted:
            raise SimulationError(f"message {message.message_id} has been deleted")
        chat = message.chat
        if isinstance(chat, PrivateChat) and chat.user is not self:
            raise SimulationError(f"{self.first_name} can't see another's private chat")
        if isinstance(chat, Group) and not chat.member(self).is_member:
            raise SimulationError(f"{self.first_name} is not a member of {chat.title}")

    def _typed(self, text: str) -> FormattedText:
        if not text.strip():
            raise SimulationError("Telegram does not send an empty message")
        return FormattedText.plain(text)

    def _post_text(
        self,
        chat: Chat,
        text: str,
        *,
        reply_to: SimMessage | None = None,
        thread: int | None = None,
    ) -> SimMessage:
        formatted = self._typed(text)
        message = self._world.post(
            chat,
            self,
            text=formatted.text,
            entities=formatted.entities,
            reply_to=reply_to,
            thread_id=thread,
        )
        self._world.deliver(message)
        return message


def _placed(
    chat: Chat, topic: int | None, reply_to: SimMessage | None
) -> tuple[int | None, SimMessage | None]:
    """The topic a new message goes to and what it replies to: in a forum topic, a
    message that replies to nothing else replies to the topic's first message, as in
    Telegram (where `reply_to_message` is then the "topic created" service message)."""
    if topic is None and reply_to is not None:
        topic = reply_to.thread_id
    if topic is None:
        return None, reply_to
    if not isinstance(chat, Group) or not chat.is_forum or topic not in chat.topics:
        raise SimulationError(f"no topic {topic} in {chat.title}")
    if reply_to is not None and reply_to.thread_id != topic:
        raise SimulationError("a reply in a topic must be to a message of that topic")
    return topic, reply_to or chat.topics[topic]


class SimGroup(Group):
    """A supergroup (or a basic group), administered by its owner on the test's behalf."""

    def __init__(
        self,
        world: World,
        chat_id: int,
        title: str,
        owner: SimUser,
        username: str | None,
        *,
        supergroup: bool = True,
    ):
        super().__init__(chat_id, title, owner, username, supergroup=supergroup)
        self._world = world

    def _check_current(self) -> None:
        """Nothing happens in a basic group once it became a supergroup."""
        if self.migrated_to is not None:
            raise SimulationError(f"{self.title} is now the supergroup {self.migrated_to}")

    def migrate_to_supergroup(self, *, by: SimUser | None = None) -> SimGroup:
        """The owner upgrades this basic group, as Telegram does: a new supergroup (a new
        id) with the same members, administrators and bot; the old group gets a service
        message with `migrate_to_chat_id`, the new one with `migrate_from_chat_id`, and
        from then on every request to the old id is refused with the new id."""
        self._check_current()
        if self.is_supergroup:
            raise SimulationError(f"{self.title} is a supergroup already")
        actor = by or self.owner
        if self.member(actor).status != "creator":
            raise SimulationError(f"only the owner of {self.title} can upgrade it")
        assert isinstance(self.owner, SimUser)
        new_id = self._world.new_group_id(supergroup=True)
        upgraded = SimGroup(self._world, new_id, self.title, self.owner, None)
        for account_id, standing in self.members.items():
            rights = replace(standing.rights) if standing.rights is not None else None
            upgraded.members[account_id] = replace(standing, rights=rights)
        upgraded.migrated_from = self.id
        self._world.groups[new_id] = upgraded
        self._world.service_message(self, actor, migrate_to_chat_id=new_id)
        self.migrated_to = new_id
        self._world.service_message(upgraded, actor, migrate_from_chat_id=self.id)
        return upgraded

    def status_of(self, account: Account) -> str:
        return self.member(account).status

    @property
    def bot_status(self) -> str:
        return self.member(self._world.bot).status

    @property
    def bot_rights(self) -> AdminRights | None:
        return self.member(self._world.bot).rights

    def add_member(self, user: SimUser, *, added_by: SimUser | None = None) -> None:
        """`user` joins (or is added by `added_by`); the bot sees the service message."""
        self._check_current()
        old = self.member(user)
        if old.is_member:
            raise SimulationError(f"{user.first_name} is already in {self.title}")
        if old.status == "kicked":
            raise SimulationError(f"{user.first_name} is banned in {self.title}")
        actor = added_by or user
        self._world.membership_changed(self, old, Membership(user, "member"), actor)
        self._world.service_message(self, actor, new_chat_members=[user])

    def remove_member(self, user: SimUser, *, by: SimUser | None = None) -> None:
        """`user` leaves, or is removed by the administrator `by`."""
        self._check_current()
        old = self.member(user)
        if not old.is_member or old.status == "creator":
            raise SimulationError(f"{user.first_name} can't be removed from {self.title}")
        actor = by or user
        self._world.membership_changed(self, old, Membership(user, "left"), actor)
        self._world.service_message(self, actor, left_chat_member=user)

    def promote(self, user: SimUser, **rights: bool) -> None:
        """Make a member an administrator with the given rights (the owner does it)."""
        self._check_current()
        old = self.member(user)
        if not old.is_member or old.status == "creator":
            raise SimulationError(f"{user.first_name} can't be promoted in {self.title}")
        new = Membership(user, "administrator", AdminRights.granting(**rights))
        self._world.membership_changed(self, old, new, self.owner)

    def restrict(self, user: SimUser, *, in_chat: bool = True) -> None:
        """The owner mutes `user` (who may be in the chat, or have left it since)."""
        self._check_current()
        if not self.is_supergroup:
            raise SimulationError(f"{self.title} is a basic group: members cannot be restricted")
        old = self.member(user)
        if old.is_admin:
            raise SimulationError(f"{user.first_name} is an administrator of {self.title}")
        new = Membership(user, "restricted", in_chat=in_chat)
        self._world.membership_changed(self, old, new, self.owner)

    def demote(self, user: SimUser) -> None:
        self._check_current()
        old = self.member(user)
        if old.status != "administrator":
            raise SimulationError(f"{user.first_name} is not an administrator of {self.title}")
        self._world.membership_changed(self, old, Membership(user, "member"), self.owner)

    def add_bot(self, *, added_by: SimUser | None = None) -> None:
        """Add the bot as an ordinary member; it gets my_chat_member and the service message."""
        self._change_bot(Membership(self._world.bot, "member"), added_by)

    def promote_bot(self, *, by: SimUser | None = None, **rights: bool) -> None:
        """Make the bot an administrator (adding it if absent) with exactly these rights."""
        new = Membership(self._world.bot, "administrator", AdminRights.granting(**rights))
        self._change_bot(new, by)

    def demote_bot(self, *, by: SimUser | None = None) -> None:
        if self.bot_status != "administrator":
            raise SimulationError(f"the bot is not an administrator of {self.title}")
        self._change_bot(Membership(self._world.bot, "member"), by)

    def remove_bot(self, *, by: SimUser | None = None, ban: bool = False) -> None:
        """Remove the bot from the group (banned if `ban`)."""
        if not self.member(self._world.bot).is_member:
            raise SimulationError(f"the bot is not in {self.title}")
        new = Membership(self._world.bot, "kicked" if ban else "left")
        self._change_bot(new, by)

    def _change_bot(self, new: Membership, by: SimUser | None) -> None:
        self._check_current()
        actor = by or self.owner
        if not self.member(actor).is_admin:
            raise SimulationError(f"{actor.first_name} is not an administrator of {self.title}")
        bot = self._world.bot
        old = self.member(bot)
        self._world.membership_changed(self, old, new, actor)
        if new.is_member and not old.is_member:
            self._world.service_message(self, actor, new_chat_members=[bot])
        elif old.is_member and not new.is_member:
            self._world.post(self, actor, service={"left_chat_member": bot})

    def make_forum(self) -> None:
        """The owner turns topics on (only a supergroup can be a forum)."""
        self._check_current()
        if not self.is_supergroup:
            raise SimulationError(f"{self.title} is a basic group: only a supergroup has topics")
        self.is_forum = True

    def create_topic(self, name: str, *, by: SimUser | None = None) -> int:
        """A member with the right opens a topic; its message_thread_id is returned."""
        actor = by or self.owner
        if not self.is_forum:
            raise SimulationError(f"{self.title} is not a forum")
        if not self.member(actor).is_member:
            raise SimulationError(f"{actor.first_name} is not a member of {self.title}")
        created = {"name": name, "icon_color": TOPIC_ICON_COLOR}
        message = self._world.post(self, actor, service={"forum_topic_created": created})
        message.thread_id = message.message_id
        self.topics[message.message_id] = message
        self._world.deliver(message)
        return message.message_id

    def delete_topic(self, topic: int, *, by: SimUser | None = None) -> None:
        """An administrator with the right to manage topics deletes one, with all its
        messages (deleteForumTopic). Telegram tells a bot nothing of it: a message sent
        to the topic afterwards is refused "message thread not found"."""
        actor = by or self.owner
        if not self.member(actor).can("can_manage_topics"):
            raise SimulationError(f"{actor.first_name} may not manage topics in {self.title}")
        if topic not in self.topics:
            raise SimulationError(f"no topic {topic} in {self.title}")
        del self.topics[topic]
        for message in self.messages():
            if message.thread_id == topic:
                message.deleted = True
                self.unpin(message)

    def linked_channel_post(self, channel: dict[str, Any], text: str) -> SimMessage:
        """A post of the group's linked channel, forwarded by Telegram into the group
        (its discussion group): from the service account 777000, on behalf of the
        channel, `is_automatic_forward`."""
        formatted = FormattedText.plain(text)
        origin = {
            "type": "channel",
            "chat": channel,
            "message_id": len(self.messages()) + 1,  # the post's own id in the channel
            "date": self._world.now(),
        }
        message = self._world.post(
            self,
            SERVICE_ACCOUNT,
            text=formatted.text,
            entities=formatted.entities,
            sender_chat=channel,
            is_automatic_forward=True,
            forward_origin=origin,
        )
        self._world.deliver(message)
        return message

    def describe(self) -> dict[str, Any]:
        """The group as the control API reports it."""
        return {
            "chat": self.to_api(),
            "members": [m.to_api() for m in self.members.values()],
        }
