"""What exists in the simulated Telegram: people, the bot, chats, memberships, messages.

Everything the Bot API methods and the simulated people act upon lives here, as plain
state plus the few rules that decide who sees what: which messages reach the bot (a
group's privacy mode, service messages, commands addressed to another bot), when a
membership change becomes a `my_chat_member` or a `chat_member` update, and how every
object is rendered in Bot API form. There is no HTTP here and no simulated behaviour;
the server and the scriptable people build on it.
"""

from __future__ import annotations

import asyncio
import itertools
import mimetypes
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from sandbox.updates import UpdateQueue

Clock = Callable[[], float]
Status = Literal["creator", "administrator", "member", "restricted", "left", "kicked"]
MEMBER_STATUSES: frozenset[str] = frozenset({"creator", "administrator", "member"})
# ChatMemberRestricted's permission fields, all required by the Bot API.
_RESTRICTED_RIGHTS = (
    *("can_send_messages", "can_send_audios", "can_send_documents", "can_send_photos"),
    *("can_send_videos", "can_send_video_notes", "can_send_voice_notes", "can_send_polls"),
    *("can_send_other_messages", "can_add_web_page_previews", "can_react_to_messages"),
    *("can_edit_tag", "can_change_info", "can_invite_users", "can_pin_messages"),
    "can_manage_topics",
)
# The fake senders Telegram puts in `from` of a message sent on behalf of a chat.
ANONYMOUS_ADMIN_ID = 1087968824  # @GroupAnonymousBot: an anonymous administrator
CHANNEL_BOT_ID = 136817688  # @Channel_Bot: a member posting as a channel
SERVICE_ACCOUNT_ID = 777000  # "Telegram": a channel's post forwarded to its discussion group
TOPIC_ICON_COLOR = 7322096  # Telegram's default topic icon colour (0x6FB9F0)
MEDIA_KINDS = (
    "photo", "document", "voice", "video_note", "sticker", "video", "audio", "animation",
)  # fmt: skip


class Account:
    """A Telegram user account: a simulated person or the bot itself."""

    def __init__(
        self,
        user_id: int,
        first_name: str,
        *,
        last_name: str | None = None,
        username: str | None = None,
        language_code: str | None = None,
        is_bot: bool = False,
    ):
        self.id = user_id
        self.first_name = first_name
        self.last_name = last_name
        self.username = username
        self.language_code = language_code
        self.is_bot = is_bot
        # Private chat with the bot: a person must press Start before the bot may write.
        self.started = False
        self.blocked = False

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}" if self.last_name else self.first_name

    def to_api(self) -> dict[str, Any]:
        user: dict[str, Any] = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        if self.last_name:
            user["last_name"] = self.last_name
        if self.username:
            user["username"] = self.username
        if self.language_code and not self.is_bot:
            user["language_code"] = self.language_code
        return user

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id} {self.full_name!r}>"


@dataclass
class AdminRights:
    """An administrator's rights in a supergroup, as ChatMemberAdministrator lists them."""

    can_manage_chat: bool = True
    can_delete_messages: bool = False
    can_manage_video_chats: bool = False
    can_restrict_members: bool = False
    can_promote_members: bool = False
    can_change_info: bool = False
    can_invite_users: bool = False
    can_post_stories: bool = False
    can_edit_stories: bool = False
    can_delete_stories: bool = False
    can_pin_messages: bool = False
    can_manage_topics: bool = False
    can_manage_direct_messages: bool = False
    can_manage_tags: bool = False
    can_send_welcome_messages: bool = False

    @classmethod
    def names(cls) -> frozenset[str]:
        return frozenset(f.name for f in fields(cls))

    @classmethod
    def granting(cls, **rights: bool) -> AdminRights:
        """Rights from keyword flags; an unknown right is a mistake in the test."""
        unknown = set(rights) - cls.names()
        if unknown:
            raise TypeError(f"unknown administrator rights: {sorted(unknown)}")
        return cls(**rights)

    def to_api(self) -> dict[str, bool]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass
class Membership:
    """One account's standing in one supergroup."""

    account: Account
    status: Status
    rights: AdminRights | None = None
    until_date: int = 0
    # A restricted account may still be in the chat or may have left it (Telegram keeps
    # the restriction either way and says which with `is_member`).
    in_chat: bool = True

    @property
    def is_member(self) -> bool:
        return self.status in MEMBER_STATUSES or (self.status == "restricted" and self.in_chat)

    @property
    def is_admin(self) -> bool:
        return self.status in ("creator", "administrator")

    def can(self, right: str) -> bool:
        """Whether this member holds an administrator right (the owner holds them all)."""
        if self.status == "creator":
            return True
        return self.rights is not None and bool(getattr(self.rights, right))

    def to_api(self) -> dict[str, Any]:
        member: dict[str, Any] = {"status": self.status, "user": self.account.to_api()}
        if self.status == "creator":
            member["is_anonymous"] = False
        elif self.status == "administrator":
            rights = self.rights or AdminRights()
            member |= {"can_be_edited": False, "is_anonymous": False} | rights.to_api()
        elif self.status == "kicked":
            member["until_date"] = self.until_date
        elif self.status == "restricted":
            # The sandbox's restriction is a mute: nothing may be sent.
            member |= {"is_member": self.in_chat, "until_date": self.until_date}
            member |= dict.fromkeys(_RESTRICTED_RIGHTS, False)
        return member


@dataclass(frozen=True)
class StoredFile:
    """An uploaded file, kept whole so a test can read what the bot sent."""

    file_id: str
    file_unique_id: str
    kind: str
    data: bytes
    filename: str | None
    mime_type: str | None


@dataclass(frozen=True)
class Button:
    """One inline keyboard button, as a person sees it."""

    text: str
    row: int
    column: int
    callback_data: str | None = None
    url: str | None = None
    web_app: str | None = None  # the Mini App's URL


@dataclass(frozen=True)
class CallbackAnswer:
    """What the bot answered to a button press: the toast or alert the person sees."""

    text: str | None
    show_alert: bool
    url: str | None
    cache_time: int


class CallbackPress:
    """A button press sent to the bot as a callback query, and the bot's answer to it."""

    def __init__(self, query_id: str, user: Account, message: SimMessage, data: str):
        self.id = query_id
        self.user = user
        self.message = message
        self.data = data
        self.answer: CallbackAnswer | None = None
        # Telegram forgets a query it waited for too long: its answer is refused then.
        self.expired = False
        self._answered = asyncio.Event()

    def expire(self) -> None:
        """The query waited past Telegram's patience (the bot was down, or slow): from
        now on answerCallbackQuery is refused as "query is too old"."""
        self.expired = True

    def resolve(self, answer: CallbackAnswer) -> None:
        self.answer = answer
        self._answered.set()

    async def wait_answer(self, *, within: float = 5.0) -> CallbackAnswer:
        """The bot's answer; `TimeoutError` if it never answers (the person's spinner)."""
        async with asyncio.timeout(within):
            await self._answered.wait()
        assert self.answer is not None
        return self.answer

    def __repr__(self) -> str:
        return f"<CallbackPress {self.id} data={self.data!r} answer={self.answer!r}>"


@dataclass
class InviteLink:
    link: str
    creator: Account
    name: str | None = None
    expire_date: int | None = None
    member_limit: int | None = None
    creates_join_request: bool = False
    is_primary: bool = False
    is_revoked: bool = False
    # Who came in by this link: member_limit counts those of them still in the chat
    # ("members of the chat simultaneously after joining via this link", Bot API).
    joined: set[int] = field(default_factory=set)

    def to_api(self) -> dict[str, Any]:
        link: dict[str, Any] = {
            "invite_link": self.link,
            "creator": self.creator.to_api(),
            "creates_join_request": self.creates_join_request,
            "is_primary": self.is_primary,
            "is_revoked": self.is_revoked,
        }
        for key in ("name", "expire_date", "member_limit"):
            if getattr(self, key) is not None:
                link[key] = getattr(self, key)
        return link


@dataclass(eq=False)
class SimMessage:
    """A message in a chat, with everything a person or the bot can observe about it."""

    chat: Chat
    message_id: int
    date: int
    sender: Account
    seq: int
    text: str | None = None
    entities: tuple[dict[str, Any], ...] = ()
    caption: str | None = None
    caption_entities: tuple[dict[str, Any], ...] = ()
    media_kind: str | None = None
    file: StoredFile | None = None
    media: Any = None
    reply_markup: dict[str, Any] | None = None
    reply_keyboard: dict[str, Any] | None = None
    protect_content: bool = False
    silent: bool = False  # sent with disable_notification: no sound on anyone's phone
    forward_origin: dict[str, Any] | None = None
    reply_to: SimMessage | None = None
    service: dict[str, Any] = field(default_factory=dict)
    edit_date: int | None = None
    deleted: bool = False
    reactions: dict[int, str] = field(default_factory=dict)  # person -> their emoji
    # Content of any other kind, by its Bot API field (a game, a checklist, paid media,
    # one Telegram adds next), and the inline bot it was sent through.
    extra: dict[str, Any] = field(default_factory=dict)
    via_bot: Account | None = None
    # On behalf of a chat (an anonymous administrator, a channel): the chat, as Chat.
    sender_chat: dict[str, Any] | None = None
    is_automatic_forward: bool = False
    thread_id: int | None = None  # the forum topic it was posted in (None: General)

    @property
    def from_bot(self) -> bool:
        """Sent by a bot, as itself: the fake senders of chats' messages are not bots."""
        return self.sender.is_bot and self.sender_chat is None

    @property
    def content(self) -> str:
        """The text, or a media message's caption ("" when there is neither)."""
        return self.text if self.text is not None else (self.caption or "")

    def buttons(self) -> list[list[Button]]:
        """The inline keyboard, row by row."""
        if not self.reply_markup:
            return []
        return [
            [
                Button(
                    text=raw["text"],
                    row=r,
                    column=c,
                    callback_data=raw.get("callback_data"),
                    url=raw.get("url"),
                    web_app=raw.get("web_app", {}).get("url"),
                )
                for c, raw in enumerate(row)
            ]
            for r, row in enumerate(self.reply_markup.get("inline_keyboard", []))
        ]

    def button(self, which: str | int) -> Button:
        """A button by its exact text, or by its position counted across all rows."""
        flat = [button for row in self.buttons() for button in row]
        if isinstance(which, int):
            if not 0 <= which < len(flat):
                raise LookupError(f"message {self.message_id} has {len(flat)} buttons, not {which}")
            return flat[which]
        matches = [button for button in flat if button.text == which]
        if not matches:
            labels = [button.text for button in flat]
            raise LookupError(f"no button {which!r} on message {self.message_id}: {labels}")
        return matches[0]

    def copied_content(self) -> dict[str, Any]:
        """What a copy of this message carries: its text, or its media and caption."""
        if self.text is not None:
            return {"text": self.text, "entities": self.entities}
        if self.extra:
            return {"extra": dict(self.extra)}
        return {
            "caption": self.caption,
            "caption_entities": self.caption_entities,
            "media_kind": self.media_kind,
            "file": self.file,
            "media": self.media,
        }

    def forwarded_content(self) -> dict[str, Any]:
        """What a forward carries: the content, credited to whoever first wrote it."""
        origin = self.forward_origin or {
            "type": "user",
            "date": self.date,
            "sender_user": self.sender.to_api(),
        }
        return self.copied_content() | {"forward_origin": origin}

    def mentioned_user_ids(self) -> list[int]:
        """Users this message mentions by link (text_mention), in order."""
        spans = self.entities if self.text is not None else self.caption_entities
        return [e["user"]["id"] for e in spans if e["type"] == "text_mention"]

    def to_api(self, *, with_reply: bool = True) -> dict[str, Any]:
        message: dict[str, Any] = {
            "message_id": self.message_id,
            "from": self.sender.to_api(),
            "date": self.date,
            "chat": self.chat.to_api(),
        }
        if self.thread_id is not None:
            message["message_thread_id"] = self.thread_id
            message["is_topic_message"] = True
        if self.sender_chat is not None:
            message["sender_chat"] = self.sender_chat
        if self.is_automatic_forward:
            message["is_automatic_forward"] = True
        if self.forward_origin is not None:
            message["forward_origin"] = self.forward_origin
        if self.reply_to is not None and with_reply:
            message["reply_to_message"] = self.reply_to.to_api(with_reply=False)
        if self.edit_date is not None:
            message["edit_date"] = self.edit_date
        if self.protect_content:
            message["has_protected_content"] = True
        if self.text is not None:
            message["text"] = self.text
            if self.entities:
                message["entities"] = list(self.entities)
        if self.via_bot is not None:
            message["via_bot"] = self.via_bot.to_api()
        if self.media_kind is not None:
            message[self.media_kind] = self.media
        message.update(self.extra)
        if self.caption:
            message["caption"] = self.caption
            if self.caption_entities:
                message["caption_entities"] = list(self.caption_entities)
        for key, value in self.service.items():
            if isinstance(value, SimMessage):
                message[key] = value.to_api(with_reply=False)
            elif isinstance(value, Account):
                message[key] = value.to_api()
            elif isinstance(value, list):
                message[key] = [account.to_api() for account in value]
            else:
                message[key] = value
        if self.reply_markup:
            message["reply_markup"] = self.reply_markup
        return message

    def __repr__(self) -> str:
        state = " deleted" if self.deleted else ""
        shown = self.content or self.media_kind or next(iter(self.service), "")
        where = f"{self.chat.id}/{self.message_id}{state}"
        return f"<SimMessage {where} {self.sender.first_name}: {shown!r}>"


class Chat(ABC):
    """Messages and pins of one chat; message ids count up per chat."""

    type: str

    def __init__(self, chat_id: int):
        self.id = chat_id
        self._messages: dict[int, SimMessage] = {}
        self._next_message_id = 1
        self._pinned: list[int] = []

    @abstractmethod
    def to_api(self) -> dict[str, Any]:
        """The chat as a Bot API Chat object."""

    @property
    @abstractmethod
    def title(self) -> str:
        """How the chat is named in a transcript."""

    def next_message_id(self) -> int:
        message_id = self._next_message_id
        self._next_message_id += 1
        return message_id

    def store(self, message: SimMessage) -> None:
        self._messages[message.message_id] = message

    def messages(self) -> list[SimMessage]:
        """Every message ever posted here, deleted ones included (marked `deleted`)."""
        return list(self._messages.values())

    def visible_messages(self) -> list[SimMessage]:
        return [message for message in self._messages.values() if not message.deleted]

    def message(self, message_id: int) -> SimMessage | None:
        """A message that still exists."""
        message = self._messages.get(message_id)
        return None if message is None or message.deleted else message

    @property
    def pinned(self) -> SimMessage | None:
        """The most recently pinned message that is still pinned."""
        return self._messages[self._pinned[-1]] if self._pinned else None

    @property
    def pinned_messages(self) -> list[SimMessage]:
        return [self._messages[message_id] for message_id in self._pinned]

    def pin(self, message: SimMessage) -> None:
        if message.message_id in self._pinned:
            self._pinned.remove(message.message_id)
        self._pinned.append(message.message_id)

    def unpin(self, message: SimMessage) -> bool:
        if message.message_id not in self._pinned:
            return False
        self._pinned.remove(message.message_id)
        return True

    def unpin_all(self) -> None:
        self._pinned.clear()


class PrivateChat(Chat):
    """A person's private chat with the bot; its id is the person's id."""

    type = "private"

    def __init__(self, user: Account):
        super().__init__(user.id)
        self.user = user

    @property
    def title(self) -> str:
        return self.user.full_name

    def to_api(self) -> dict[str, Any]:
        chat: dict[str, Any] = {
            "id": self.id,
            "type": "private",
            "first_name": self.user.first_name,
        }
        if self.user.last_name:
            chat["last_name"] = self.user.last_name
        if self.user.username:
            chat["username"] = self.user.username
        return chat


class Group(Chat):
    """A supergroup, or a basic group (`supergroup=False`, Chat type "group"): members
    with their statuses and rights, invite links, messages.

    A basic group upgraded to a supergroup (`migrated_to`) is only history: Telegram
    refuses every request to its id and names the supergroup's instead.
    """

    def __init__(
        self,
        chat_id: int,
        title: str,
        owner: Account,
        username: str | None = None,
        *,
        supergroup: bool = True,
    ):
        super().__init__(chat_id)
        self.type = "supergroup" if supergroup else "group"
        self.migrated_to: int | None = None  # a basic group's supergroup, once upgraded
        self.migrated_from: int | None = None  # a supergroup's basic group, if upgraded
        self._title = title
        self.username = username
        self.owner = owner
        self.members: dict[int, Membership] = {owner.id: Membership(owner, "creator")}
        self.invite_links: dict[str, InviteLink] = {}
        # A forum: its topics by message_thread_id (the id of the topic's first,
        # "topic created" service message, which every message in it replies to).
        self.is_forum = False
        self.topics: dict[int, SimMessage] = {}

    @property
    def title(self) -> str:
        return self._title

    def member(self, account: Account) -> Membership:
        """The account's membership; one who was never here has status "left"."""
        return self.members.get(account.id) or Membership(account, "left")

    def member_list(self) -> list[Membership]:
        return [m for m in self.members.values() if m.is_member]

    @property
    def is_supergroup(self) -> bool:
        return self.type == "supergroup"

    def to_api(self) -> dict[str, Any]:
        chat: dict[str, Any] = {"id": self.id, "type": self.type, "title": self._title}
        if self.username:
            chat["username"] = self.username
        if self.is_forum:
            chat["is_forum"] = True
        return chat


@dataclass(frozen=True)
class ScopeKey:
    """Where a command list applies (BotCommandScope), reduced to comparable ids."""

    type: str
    chat_id: int | None = None
    user_id: int | None = None


class World:
    """All simulated state, and the rules that turn changes into the bot's updates."""

    def __init__(self, bot: Account, clock: Clock, *, privacy_mode: bool):
        self.bot = bot
        self.clock = clock
        self.privacy_mode = privacy_mode
        # What Telegram signs a Mini App's initData with (set by the Sandbox).
        self.bot_token = ""
        self.updates = UpdateQueue()
        self.users: dict[int, Account] = {}
        self.groups: dict[int, Group] = {}
        self._privates: dict[int, PrivateChat] = {}
        self.files: dict[str, StoredFile] = {}
        self.queries: dict[str, CallbackPress] = {}
        self.commands: dict[tuple[ScopeKey, str], list[dict[str, str]]] = {}
        self.default_admin_rights: dict[bool, dict[str, Any]] = {}
        self.texts: dict[tuple[str, str], str] = {}
        self._seq = itertools.count(1)
        self.last_seq = 0  # of the newest message: where a driver's step ended
        self._file_seq = itertools.count(1)
        self._query_seq = itertools.count(4_000_000_000_000_000_001)
        self._link_seq = itertools.count(1)
        # Chat ids as Telegram hands them out: a supergroup's start with -100, a basic
        # group's are plain negative numbers.
        self._supergroup_ids = itertools.count(1_001_000_000_001)
        self._basic_group_ids = itertools.count(4_000_000_001)

    def now(self) -> int:
        return int(self.clock())

    # -- lookups --------------------------------------------------------------------------

    def private_chat(self, user: Account) -> PrivateChat:
        chat = self._privates.get(user.id)
        if chat is None:
            chat = self._privates[user.id] = PrivateChat(user)
        return chat

    def find_chat(self, chat_id: int | str) -> Chat | None:
        """A chat by id, or a supergroup by its @username (as the Bot API accepts)."""
        if isinstance(chat_id, str):
            wanted = chat_id.removeprefix("@").lower()
            return next(
                (g for g in self.groups.values() if g.username and g.username.lower() == wanted),
                None,
            )
        if chat_id in self.groups:
            return self.groups[chat_id]
        user = self.users.get(chat_id)
        return self.private_chat(user) if user is not None else None

    def find_account(self, user_id: int) -> Account | None:
        return self.bot if user_id == self.bot.id else self.users.get(user_id)

    def user_api(self, user_id: int) -> dict[str, Any] | None:
        account = self.find_account(user_id)
        return account.to_api() if account is not None else None

    def chats(self) -> Iterator[Chat]:
        yield from self.groups.values()
        yield from self._privates.values()

    # -- creation -------------------------------------------------------------------------

    def post(self, chat: Chat, sender: Account, **content: Any) -> SimMessage:
        """A new message in `chat`, stored with the next id; delivery is the caller's call."""
        message = SimMessage(
            chat=chat,
            message_id=chat.next_message_id(),
            date=self.now(),
            sender=sender,
            seq=next(self._seq),
            **content,
        )
        self.last_seq = message.seq
        chat.store(message)
        return message

    def store_file(
        self, kind: str, data: bytes, filename: str | None, mime: str | None
    ) -> StoredFile:
        number = next(self._file_seq)
        if mime is None and filename:
            mime = mimetypes.guess_type(filename)[0]
        stored = StoredFile(
            file_id=f"SBX{kind.upper()}{number:06d}",
            file_unique_id=f"U{number:06d}",
            kind=kind,
            data=data,
            filename=filename,
            mime_type=mime,
        )
        self.files[stored.file_id] = stored
        return stored

    def new_query_id(self) -> str:
        return str(next(self._query_seq))

    def new_group_id(self, *, supergroup: bool) -> int:
        return -next(self._supergroup_ids if supergroup else self._basic_group_ids)

    def new_invite_link(self) -> str:
        return f"https://t.me/+sbx{next(self._link_seq):08d}"

    def chat_instance(self, chat: Chat) -> str:
        """A stable identifier of the chat a button was pressed in, as Telegram gives."""
        return str(abs(chat.id) * 7919 % 10**18)

    # -- what reaches the bot -------------------------------------------------------------

    def deliver(self, message: SimMessage, *, edited: bool = False) -> None:
        """Queue a person's new (or edited) message as an update if the bot would see it."""
        if message.from_bot or not self._bot_sees(message):
            return
        self.updates.push("edited_message" if edited else "message", message.to_api())

    def _bot_sees(self, message: SimMessage) -> bool:
        chat = message.chat
        if isinstance(chat, PrivateChat):
            return chat.user.started and not chat.user.blocked
        assert isinstance(chat, Group)
        standing = chat.member(self.bot)
        if not standing.is_member:
            return False
        if message.service or standing.is_admin or not self.privacy_mode:
            return True
        if message.reply_to is not None and message.reply_to.from_bot:
            return True
        return self._addressed_command(message)

    def _addressed_command(self, message: SimMessage) -> bool:
        """In privacy mode a bot sees commands, unless they name another bot."""
        text = message.content
        spans = message.entities if message.text is not None else message.caption_entities
        first = next((e for e in spans if e["offset"] == 0), None)
        if first is None or first["type"] != "bot_command":
            return False
        command = text[: first["length"]]
        _, _, addressee = command.partition("@")
        return not addressee or addressee.lower() == (self.bot.username or "").lower()

    def membership_changed(
        self,
        group: Group,
        old: Membership,
        new: Membership,
        actor: Account,
        *,
        invite_link: InviteLink | None = None,
    ) -> None:
        """Record a new membership and tell the bot, as my_chat_member or chat_member."""
        group.members[new.account.id] = new
        update = self._member_update(group, actor, old, new)
        if invite_link is not None:
            update["invite_link"] = invite_link.to_api()
        if new.account is self.bot:
            self.updates.push("my_chat_member", update)
        elif group.member(self.bot).is_admin:
            self.updates.push("chat_member", update)

    def private_status_changed(self, user: Account, *, blocked: bool) -> None:
        """A person blocked or unblocked the bot: my_chat_member in their private chat."""
        member, kicked = Membership(self.bot, "member"), Membership(self.bot, "kicked")
        old, new = (member, kicked) if blocked else (kicked, member)
        update = self._member_update(self.private_chat(user), user, old, new)
        self.updates.push("my_chat_member", update)

    def _member_update(
        self, chat: Chat, actor: Account, old: Membership, new: Membership
    ) -> dict[str, Any]:
        return {
            "chat": chat.to_api(),
            "from": actor.to_api(),
            "date": self.now(),
            "old_chat_member": old.to_api(),
            "new_chat_member": new.to_api(),
        }

    def service_message(self, group: Group, actor: Account, **service: Any) -> SimMessage:
        """A service message ("X joined", "Y pinned ...") that the bot sees if present."""
        message = self.post(group, actor, service=service)
        self.deliver(message)
        return message


def media_payload(
    kind: str, stored: StoredFile, *, emoji: str | None = None, duration: int | None = None
) -> Any:
    """The Bot API object of a media message of `kind` holding `stored`."""
    base: dict[str, Any] = {
        "file_id": stored.file_id,
        "file_unique_id": stored.file_unique_id,
        "file_size": len(stored.data),
    }
    seconds = duration if duration is not None else 1
    named: dict[str, Any] = {}
    if stored.filename:
        named["file_name"] = stored.filename
    if stored.mime_type:
        named["mime_type"] = stored.mime_type
    if kind == "photo":
        return [base | {"width": 320, "height": 320}]
    if kind == "document":
        return base | named
    if kind == "voice":
        return base | {"duration": seconds, "mime_type": stored.mime_type or "audio/ogg"}
    if kind == "video_note":
        return base | {"length": 240, "duration": seconds}
    if kind == "sticker":
        sticker = base | {"type": "regular", "width": 512, "height": 512}
        sticker |= {"is_animated": False, "is_video": False}
        return sticker | ({"emoji": emoji} if emoji else {})
    if kind == "audio":
        return base | {"duration": seconds} | named
    # video and animation
    return base | {"width": 640, "height": 360, "duration": seconds} | named
