"""The Bot API methods the sandbox emulates, with Telegram's own refusals.

Each method takes parameters that already passed the schema check (right names, right
types) and applies Telegram's rules on top: who may write to whom (a person must have
pressed Start, and not blocked the bot), which administrator right each action needs,
which messages may be edited or deleted, when an edit changes nothing, what a button
may carry. The error texts are Telegram's, so a bot that matches on them (say, on
"message is not modified") behaves here as it will in production.

`getUpdates` is not here: it waits, so the server runs it on the update queue directly.
A real method without an emulation answers 501, which makes a test fail loudly instead
of letting the bot believe something happened.
"""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from sandbox.api_errors import ApiError
from sandbox.formatting import FormattedText, check_length, format_text
from sandbox.parse_modes import checked_link
from sandbox.schema import UploadedFile
from sandbox.webhook import checked_webhook
from sandbox.world import (
    Account,
    AdminRights,
    CallbackAnswer,
    Chat,
    Group,
    InviteLink,
    Membership,
    PrivateChat,
    ScopeKey,
    SimMessage,
    StoredFile,
    World,
    media_payload,
)

Params = dict[str, Any]

_BUTTON_ACTIONS = (
    "url", "callback_data", "web_app", "login_url", "switch_inline_query",
    "switch_inline_query_current_chat", "switch_inline_query_chosen_chat", "copy_text",
    "callback_game", "pay",
)  # fmt: skip
_CHAT_ACTIONS = frozenset(
    {
        "typing", "upload_photo", "record_video", "upload_video", "record_voice",
        "upload_voice", "upload_document", "choose_sticker", "find_location",
        "record_video_note", "upload_video_note",
    }
)  # fmt: skip
_MEDIA_METHODS = {
    "sendPhoto": "photo", "sendDocument": "document", "sendVoice": "voice",
    "sendVideoNote": "video_note", "sendSticker": "sticker", "sendVideo": "video",
    "sendAudio": "audio", "sendAnimation": "animation",
}  # fmt: skip
_COMMAND = re.compile(r"[a-z0-9_]{1,32}")
_LANGUAGE = re.compile(r"[a-z]{2}")
_DELETE_WINDOW = 48 * 3600
# setMyName and friends: the stored text's key in the answer, and its longest length.
_BOT_TEXTS = {"name": ("name", 64), "description": ("description", 512),
              "short_description": ("short_description", 120)}  # fmt: skip
_DEFAULT_PERMISSIONS = {
    "can_send_messages": True, "can_send_audios": True, "can_send_documents": True,
    "can_send_photos": True, "can_send_videos": True, "can_send_video_notes": True,
    "can_send_voice_notes": True, "can_send_polls": True, "can_send_other_messages": True,
    "can_add_web_page_previews": True, "can_change_info": False, "can_invite_users": True,
    "can_pin_messages": False, "can_manage_topics": False,
}  # fmt: skip
# What a member must be allowed to send for the restriction to be none at all.
_MESSAGE_PERMISSIONS = (
    "can_send_messages", "can_send_audios", "can_send_documents", "can_send_photos",
    "can_send_videos", "can_send_video_notes", "can_send_voice_notes", "can_send_polls",
    "can_send_other_messages", "can_add_web_page_previews",
)  # fmt: skip
_NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly "
    "the same as a current content and reply markup of the message"
)
_PIN_RIGHTS = "not enough rights to manage pinned messages in the chat"
_RESTRICT_RIGHTS = "not enough rights to restrict/unrestrict chat member"
_INVITE_RIGHTS = "not enough rights to manage chat invite link"


class BotApi:
    """Method name → implementation over one `World`."""

    def __init__(self, world: World, *, local_mode: bool = False):
        self.world = world
        self.local_mode = local_mode  # a `--local` Bot API server: see sandbox.webhook
        self.handlers: dict[str, Callable[[Params], Any]] = {
            "getMe": self.get_me,
            "logOut": self.always_true,
            "close": self.always_true,
            "setWebhook": self.set_webhook,
            "deleteWebhook": self.delete_webhook,
            "getWebhookInfo": self.get_webhook_info,
            "sendMessage": self.send_message,
            "forwardMessage": self.forward_message,
            "copyMessage": self.copy_message,
            "sendChatAction": self.send_chat_action,
            "editMessageText": self.edit_message_text,
            "editMessageCaption": self.edit_message_caption,
            "editMessageReplyMarkup": self.edit_message_reply_markup,
            "deleteMessage": self.delete_message,
            "deleteMessages": self.delete_messages,
            "pinChatMessage": self.pin_chat_message,
            "unpinChatMessage": self.unpin_chat_message,
            "unpinAllChatMessages": self.unpin_all_chat_messages,
            "answerCallbackQuery": self.answer_callback_query,
            "getChat": self.get_chat,
            "getChatMember": self.get_chat_member,
            "getChatAdministrators": self.get_chat_administrators,
            "getChatMemberCount": self.get_chat_member_count,
            "leaveChat": self.leave_chat,
            "banChatMember": self.ban_chat_member,
            "unbanChatMember": self.unban_chat_member,
            "restrictChatMember": self.restrict_chat_member,
            "createChatInviteLink": self.create_chat_invite_link,
            "exportChatInviteLink": self.export_chat_invite_link,
            "revokeChatInviteLink": self.revoke_chat_invite_link,
            "setMyCommands": self.set_my_commands,
            "getMyCommands": self.get_my_commands,
            "deleteMyCommands": self.delete_my_commands,
            "setMyDefaultAdministratorRights": self.set_default_admin_rights,
            "getMyDefaultAdministratorRights": self.get_default_admin_rights,
        }
        for method, kind in _MEDIA_METHODS.items():
            self.handlers[method] = self._media_sender(kind)
        for kind in _BOT_TEXTS:
            camel = "".join(part.title() for part in kind.split("_"))
            self.handlers[f"setMy{camel}"] = self._bot_text_setter(kind)
            self.handlers[f"getMy{camel}"] = self._bot_text_getter(kind)

    def call(self, method: str, params: Params) -> Any:
        handler = self.handlers.get(method)
        if handler is None:
            raise ApiError(501, f"Not Implemented: the sandbox does not emulate {method}")
        return handler(params)

    # -- lookups and permissions ----------------------------------------------------------

    def _chat(self, chat_id: int | str) -> Chat:
        chat = self.world.find_chat(chat_id)
        if chat is None:
            raise ApiError.bad_request("chat not found")
        if isinstance(chat, Group) and chat.migrated_to is not None:
            raise ApiError.migrated(chat.migrated_to)
        return chat

    def _present(self, chat: Chat) -> Chat:
        """The chat, if the bot may act in it at all."""
        if isinstance(chat, PrivateChat):
            if chat.user.blocked:
                raise ApiError.forbidden("bot was blocked by the user")
            if not chat.user.started:
                raise ApiError.forbidden("bot can't initiate conversation with a user")
        elif isinstance(chat, Group):
            standing = chat.member(self.world.bot)
            kind = "supergroup chat" if chat.is_supergroup else "group chat"
            if standing.status == "kicked":
                raise ApiError.forbidden(f"bot was kicked from the {kind}")
            if not standing.is_member:
                raise ApiError.forbidden(f"bot is not a member of the {kind}")
        return chat

    def _supergroup(self, chat_id: int | str) -> Group:
        """A supergroup, for the methods a basic group does not have."""
        chat = self._chat(chat_id)
        if not isinstance(chat, Group):
            raise ApiError.bad_request("method is available only for supergroups")
        if not chat.is_supergroup:
            raise ApiError.bad_request("method is available for supergroup and channel chats only")
        self._present(chat)
        return chat

    def _group(self, chat_id: int | str, private_refusal: str) -> Group:
        chat = self._present(self._chat(chat_id))
        if not isinstance(chat, Group):
            raise ApiError.bad_request(private_refusal)
        return chat

    def _require(self, chat: Chat, right: str, refusal: str) -> None:
        if isinstance(chat, Group) and not chat.member(self.world.bot).can(right):
            raise ApiError.bad_request(refusal)

    def _account(self, user_id: int) -> Account:
        account = self.world.find_account(user_id)
        if account is None:
            raise ApiError.bad_request("user not found")
        return account

    def _format(
        self, params: Params, key: str, entities_key: str, *, caption: bool
    ) -> FormattedText:
        text = params.get(key)
        if text is None:
            return FormattedText("")
        formatted = format_text(
            text,
            parse_mode=params.get("parse_mode"),
            entities=params.get(entities_key),
            find_user=self.world.user_api,
            allow_empty=caption,
        )
        check_length(formatted, caption=caption)
        return formatted

    def _markups(
        self, params: Params, chat: Chat
    ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """The inline keyboard and the reply keyboard a new message carries."""
        markup = params.get("reply_markup")
        if markup is None:
            return None, None
        if "inline_keyboard" in markup:
            return self._inline_keyboard(markup, chat), None
        return None, markup

    def _inline_keyboard(self, markup: dict[str, Any], chat: Chat) -> dict[str, Any] | None:
        count = 0
        for row in markup["inline_keyboard"]:
            for button in row:
                count += 1
                actions = [action for action in _BUTTON_ACTIONS if action in button]
                if not button["text"].strip():
                    raise ApiError.bad_request("BUTTON_TEXT_INVALID")
                if not actions:
                    raise ApiError.bad_request("text buttons are unallowed in the inline keyboard")
                if len(actions) > 1 or actions[0] in ("pay", "callback_game"):
                    raise ApiError.bad_request("BUTTON_TYPE_INVALID")
                data = button.get("callback_data")
                if data is not None and not 1 <= len(data.encode("utf-8")) <= 64:
                    raise ApiError.bad_request("BUTTON_DATA_INVALID")
                if "url" in button and not checked_link(button["url"]):
                    raise ApiError.bad_request("BUTTON_URL_INVALID")
                if "web_app" in button and not isinstance(chat, PrivateChat):
                    raise ApiError.bad_request("BUTTON_TYPE_INVALID")
                if "web_app" in button and not _https(button["web_app"].get("url", "")):
                    raise ApiError.bad_request(
                        "inline keyboard button Web App URL is invalid: "
                        "Only HTTPS links are allowed"
                    )
        if count > 100:
            raise ApiError.bad_request("reply markup is too long")
        # An empty keyboard is no keyboard.
        return markup if count else None

    def _reply_target(self, params: Params, chat: Chat) -> SimMessage | None:
        reply = params.get("reply_parameters")
        if reply is None:
            return None
        source = self._chat(reply["chat_id"]) if "chat_id" in reply else chat
        message = source.message(reply["message_id"])
        if message is None and not reply.get("allow_sending_without_reply"):
            raise ApiError.bad_request("message to be replied not found")
        return message

    def _thread(self, params: Params, chat: Chat) -> int | None:
        """The forum topic a new message goes to: one that exists in a forum, or none."""
        self._unsupported_placement(params)
        thread = params.get("message_thread_id")
        if thread is None:
            return None
        if not isinstance(chat, Group) or not chat.is_forum or thread not in chat.topics:
            # A private chat has no topics, a plain supergroup only reply threads; Telegram
            # answers the same for a topic that was never opened.
            raise ApiError.bad_request("message thread not found")
        return int(thread)

    def _placed(self, params: Params, chat: Chat) -> tuple[int | None, SimMessage | None]:
        """Where a new message goes: its topic, and what it replies to (in a topic, the
        topic's first message unless it replies to another, as Telegram shows it)."""
        thread = self._thread(params, chat)
        reply = self._reply_target(params, chat)
        if thread is not None and reply is None:
            assert isinstance(chat, Group)
            reply = chat.topics[thread]
        return thread, reply

    def _unsupported_placement(self, params: Params) -> None:
        """Business connections and channels' direct messages do not exist in the sandbox."""
        if "business_connection_id" in params:
            raise ApiError.bad_request("business connection not found")
        if "direct_messages_topic_id" in params:
            raise ApiError.bad_request("direct messages topic not found")

    def _input_file(self, value: UploadedFile | str, kind: str) -> StoredFile:
        if isinstance(value, UploadedFile):
            content_type: str | None = value.content_type
            if content_type in (None, "", "application/octet-stream"):
                content_type = mimetypes.guess_type(value.filename)[0]
            return self.world.store_file(kind, value.data, value.filename, content_type)
        stored = self.world.files.get(value)
        if stored is not None:
            return stored
        if value.startswith(("http://", "https://")):
            raise ApiError.bad_request("failed to get HTTP URL content")
        raise ApiError.bad_request("wrong file identifier/HTTP URL specified")

    # -- the bot and its updates ----------------------------------------------------------

    def get_me(self, params: Params) -> Any:
        return self.world.bot.to_api() | {
            "can_join_groups": True,
            "can_read_all_group_messages": not self.world.privacy_mode,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    def always_true(self, params: Params) -> Any:
        return True

    def set_webhook(self, params: Params) -> Any:
        hook = checked_webhook(params, local=self.local_mode)
        updates = self.world.updates
        updates.set_allowed(params.get("allowed_updates"))
        if params.get("drop_pending_updates"):
            updates.drop_pending()
        updates.set_webhook(hook)
        return True

    def delete_webhook(self, params: Params) -> Any:
        if params.get("drop_pending_updates"):
            self.world.updates.drop_pending()
        self.world.updates.set_webhook(None)
        return True

    def get_webhook_info(self, params: Params) -> Any:
        updates = self.world.updates
        pending = len(updates.pending)
        if updates.webhook is None:
            return {"url": "", "has_custom_certificate": False, "pending_update_count": pending}
        return updates.webhook.info(pending, updates.allowed())

    # -- sending --------------------------------------------------------------------------

    def send_message(self, params: Params) -> Any:
        chat = self._present(self._chat(params["chat_id"]))
        thread, reply_to = self._placed(params, chat)
        text = self._format(params, "text", "entities", caption=False)
        inline, keyboard = self._markups(params, chat)
        message = self.world.post(
            chat,
            self.world.bot,
            text=text.text,
            entities=text.entities,
            reply_markup=inline,
            reply_keyboard=keyboard,
            protect_content=bool(params.get("protect_content")),
            silent=bool(params.get("disable_notification")),
            reply_to=reply_to,
            thread_id=thread,
        )
        return message.to_api()

    def _media_sender(self, kind: str) -> Callable[[Params], Any]:
        def send(params: Params) -> Any:
            chat = self._present(self._chat(params["chat_id"]))
            thread, reply_to = self._placed(params, chat)
            stored = self._input_file(params[kind], kind)
            caption = self._format(params, "caption", "caption_entities", caption=True)
            inline, keyboard = self._markups(params, chat)
            payload = media_payload(
                kind, stored, emoji=params.get("emoji"), duration=params.get("duration")
            )
            message = self.world.post(
                chat,
                self.world.bot,
                media_kind=kind,
                file=stored,
                media=payload,
                caption=caption.text or None,
                caption_entities=caption.entities,
                reply_markup=inline,
                reply_keyboard=keyboard,
                protect_content=bool(params.get("protect_content")),
                reply_to=reply_to,
                thread_id=thread,
            )
            return message.to_api()

        return send

    def _source_message(self, params: Params, action: str, done: str) -> SimMessage:
        source = self._present(self._chat(params["from_chat_id"]))
        message = source.message(params["message_id"])
        if message is None:
            raise ApiError.bad_request(f"message to {action} not found")
        if message.service:
            raise ApiError.bad_request(f"message can't be {done}")
        if message.protect_content:
            raise ApiError.bad_request("message has protected content and can't be forwarded")
        return message

    def forward_message(self, params: Params) -> Any:
        chat = self._present(self._chat(params["chat_id"]))
        thread = self._thread(params, chat)
        original = self._source_message(params, "forward", "forwarded")
        message = self.world.post(
            chat,
            self.world.bot,
            thread_id=thread,
            protect_content=bool(params.get("protect_content")),
            **original.forwarded_content(),
        )
        return message.to_api()

    def copy_message(self, params: Params) -> Any:
        chat = self._present(self._chat(params["chat_id"]))
        thread, reply_to = self._placed(params, chat)
        original = self._source_message(params, "copy", "copied")
        content = original.copied_content()
        if original.text is None and "caption" in params:
            caption = self._format(params, "caption", "caption_entities", caption=True)
            content |= {"caption": caption.text or None, "caption_entities": caption.entities}
        inline, keyboard = self._markups(params, chat)
        message = self.world.post(
            chat,
            self.world.bot,
            reply_markup=inline,
            reply_keyboard=keyboard,
            protect_content=bool(params.get("protect_content")),
            reply_to=reply_to,
            thread_id=thread,
            **content,
        )
        return {"message_id": message.message_id}

    def send_chat_action(self, params: Params) -> Any:
        self._thread(params, self._present(self._chat(params["chat_id"])))
        if params["action"] not in _CHAT_ACTIONS:
            raise ApiError.bad_request("wrong parameter action in request")
        return True

    # -- editing and deleting -------------------------------------------------------------

    def _own_message(self, params: Params) -> SimMessage:
        """The bot's message an edit method points at."""
        if "business_connection_id" in params:
            raise ApiError.bad_request("business connection not found")
        if "inline_message_id" in params:
            raise ApiError.bad_request("MESSAGE_ID_INVALID")
        if "chat_id" not in params or "message_id" not in params:
            raise ApiError.bad_request("message identifier is not specified")
        chat = self._present(self._chat(params["chat_id"]))
        message = chat.message(params["message_id"])
        if message is None:
            raise ApiError.bad_request("message to edit not found")
        if not message.from_bot or message.service or message.forward_origin is not None:
            raise ApiError.bad_request("message can't be edited")
        return message

    def _edited_markup(self, params: Params, chat: Chat) -> dict[str, Any] | None:
        """Editing without reply_markup removes the keyboard, as in Telegram."""
        markup = params.get("reply_markup")
        return None if markup is None else self._inline_keyboard(markup, chat)

    def edit_message_text(self, params: Params) -> Any:
        message = self._own_message(params)
        if message.text is None:
            raise ApiError.bad_request("there is no text in the message to edit")
        text = self._format(params, "text", "entities", caption=False)
        markup = self._edited_markup(params, message.chat)
        if (text.text, text.entities, markup) == (
            message.text,
            message.entities,
            message.reply_markup,
        ):
            raise ApiError.bad_request(_NOT_MODIFIED)
        message.text, message.entities, message.reply_markup = text.text, text.entities, markup
        message.edit_date = self.world.now()
        return message.to_api()

    def edit_message_caption(self, params: Params) -> Any:
        message = self._own_message(params)
        if message.media_kind is None:
            raise ApiError.bad_request("there is no caption in the message to edit")
        caption = self._format(params, "caption", "caption_entities", caption=True)
        markup = self._edited_markup(params, message.chat)
        new = (caption.text or None, caption.entities, markup)
        if new == (message.caption, message.caption_entities, message.reply_markup):
            raise ApiError.bad_request(_NOT_MODIFIED)
        message.caption, message.caption_entities, message.reply_markup = new
        message.edit_date = self.world.now()
        return message.to_api()

    def edit_message_reply_markup(self, params: Params) -> Any:
        message = self._own_message(params)
        markup = self._edited_markup(params, message.chat)
        if markup == message.reply_markup:
            raise ApiError.bad_request(_NOT_MODIFIED)
        message.reply_markup = markup
        message.edit_date = self.world.now()
        return message.to_api()

    def _check_deletable(self, message: SimMessage) -> None:
        chat = message.chat
        if self.world.now() - message.date > _DELETE_WINDOW:
            raise ApiError.bad_request("message can't be deleted")
        if isinstance(chat, Group) and not (
            message.from_bot or chat.member(self.world.bot).can("can_delete_messages")
        ):
            raise ApiError.bad_request("message can't be deleted")

    def _delete(self, message: SimMessage) -> None:
        message.deleted = True
        message.chat.unpin(message)

    def delete_message(self, params: Params) -> Any:
        chat = self._present(self._chat(params["chat_id"]))
        message = chat.message(params["message_id"])
        if message is None:
            raise ApiError.bad_request("message to delete not found")
        self._check_deletable(message)
        self._delete(message)
        return True

    def delete_messages(self, params: Params) -> Any:
        chat = self._present(self._chat(params["chat_id"]))
        ids = params["message_ids"]
        if not 1 <= len(ids) <= 100:
            raise ApiError.bad_request("message_ids must list 1-100 messages")
        found = [m for m in (chat.message(i) for i in ids) if m is not None]
        if not found:
            raise ApiError.bad_request("message to delete not found")
        for message in found:
            self._check_deletable(message)
        for message in found:
            self._delete(message)
        return True

    # -- pins -----------------------------------------------------------------------------

    def pin_chat_message(self, params: Params) -> Any:
        chat = self._present(self._chat(params["chat_id"]))
        self._require(chat, "can_pin_messages", _PIN_RIGHTS)
        message = chat.message(params["message_id"])
        if message is None:
            raise ApiError.bad_request("message to pin not found")
        chat.pin(message)
        self.world.post(chat, self.world.bot, service={"pinned_message": message})
        return True

    def unpin_chat_message(self, params: Params) -> Any:
        chat = self._present(self._chat(params["chat_id"]))
        self._require(chat, "can_pin_messages", _PIN_RIGHTS)
        if "message_id" in params:
            message = chat.message(params["message_id"])
            if message is None:
                raise ApiError.bad_request("message to unpin not found")
        else:
            message = chat.pinned
        if message is not None:
            chat.unpin(message)
        return True

    def unpin_all_chat_messages(self, params: Params) -> Any:
        chat = self._present(self._chat(params["chat_id"]))
        self._require(chat, "can_pin_messages", _PIN_RIGHTS)
        chat.unpin_all()
        return True

    # -- buttons --------------------------------------------------------------------------

    def answer_callback_query(self, params: Params) -> Any:
        press = self.world.queries.get(params["callback_query_id"])
        if press is None or press.answer is not None or press.expired:
            raise ApiError.bad_request(
                "query is too old and response timeout expired or query ID is invalid"
            )
        text = params.get("text")
        if text is not None and len(text) > 200:
            raise ApiError.bad_request("MESSAGE_TOO_LONG")
        url = params.get("url")
        if url is not None and not url.startswith(f"https://t.me/{self.world.bot.username}?"):
            raise ApiError.bad_request("URL_INVALID")
        press.resolve(
            CallbackAnswer(
                text=text,
                show_alert=bool(params.get("show_alert")),
                url=url,
                cache_time=params.get("cache_time", 0),
            )
        )
        return True

    # -- chats and members ----------------------------------------------------------------

    def get_chat(self, params: Params) -> Any:
        chat = self._chat(params["chat_id"])
        if isinstance(chat, Group):
            self._present(chat)
        info = chat.to_api() | {
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": {
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        }
        if chat.pinned is not None:
            info["pinned_message"] = chat.pinned.to_api(with_reply=False)
        if isinstance(chat, Group):
            info["permissions"] = dict(_DEFAULT_PERMISSIONS)
            primary = next((i for i in chat.invite_links.values() if i.is_primary), None)
            if primary is not None and chat.member(self.world.bot).can("can_invite_users"):
                info["invite_link"] = primary.link
        return info

    def get_chat_member(self, params: Params) -> Any:
        chat = self._chat(params["chat_id"])
        account = self._account(params["user_id"])
        if isinstance(chat, PrivateChat):
            if account not in (chat.user, self.world.bot):
                raise ApiError.bad_request("user not found")
            return Membership(account, "member").to_api()
        assert isinstance(chat, Group)
        self._present(chat)
        return chat.member(account).to_api()

    def get_chat_administrators(self, params: Params) -> Any:
        group = self._group(params["chat_id"], "there are no administrators in the private chat")
        return [m.to_api() for m in group.members.values() if m.is_admin]

    def get_chat_member_count(self, params: Params) -> Any:
        chat = self._chat(params["chat_id"])
        if isinstance(chat, PrivateChat):
            return 2
        assert isinstance(chat, Group)
        self._present(chat)
        return len(chat.member_list())

    def leave_chat(self, params: Params) -> Any:
        group = self._group(
            params["chat_id"], "chat member status can't be changed in private chats"
        )
        bot = self.world.bot
        self.world.membership_changed(group, group.member(bot), Membership(bot, "left"), bot)
        self.world.post(group, bot, service={"left_chat_member": bot})
        return True

    def _target_member(self, group: Group, user_id: int) -> Membership:
        account = self._account(user_id)
        if account is self.world.bot:
            raise ApiError.bad_request("can't restrict self")
        standing = group.member(account)
        if standing.status == "creator":
            raise ApiError.bad_request("can't remove chat owner")
        if standing.status == "administrator":
            raise ApiError.bad_request("user is an administrator of the chat")
        return standing

    def ban_chat_member(self, params: Params) -> Any:
        group = self._group(
            params["chat_id"], "chat member status can't be changed in private chats"
        )
        self._require(group, "can_restrict_members", _RESTRICT_RIGHTS)
        standing = self._target_member(group, params["user_id"])
        until = params.get("until_date", 0)
        if until and not 30 <= until - self.world.now() <= 366 * 86400:
            until = 0  # Telegram: shorter than 30 s or longer than 366 days means forever
        bot = self.world.bot
        banned = Membership(standing.account, "kicked", until_date=until)
        self.world.membership_changed(group, standing, banned, bot)
        if standing.is_member:
            self.world.post(group, bot, service={"left_chat_member": standing.account})
        if params.get("revoke_messages"):
            for message in group.visible_messages():
                if message.sender is standing.account:
                    self._delete(message)
        return True

    def unban_chat_member(self, params: Params) -> Any:
        group = self._supergroup(params["chat_id"])
        self._require(group, "can_restrict_members", _RESTRICT_RIGHTS)
        standing = self._target_member(group, params["user_id"])
        bot = self.world.bot
        gone = Membership(standing.account, "left")
        if standing.status == "kicked":
            self.world.membership_changed(group, standing, gone, bot)
        elif standing.is_member and not params.get("only_if_banned"):
            self.world.membership_changed(group, standing, gone, bot)
            self.world.post(group, bot, service={"left_chat_member": standing.account})
        return True

    def restrict_chat_member(self, params: Params) -> Any:
        """A supergroup's member muted (any permission taken away: the sandbox's
        restriction is a mute) or set free (every permission given)."""
        group = self._supergroup(params["chat_id"])
        self._require(group, "can_restrict_members", _RESTRICT_RIGHTS)
        standing = self._target_member(group, params["user_id"])
        permissions = params["permissions"]
        if not isinstance(permissions, dict):
            raise ApiError.bad_request("can't parse permissions JSON object")
        muted = not all(permissions.get(key, False) for key in _MESSAGE_PERMISSIONS)
        bot = self.world.bot
        if muted:
            until = params.get("until_date", 0)
            if until and not 30 <= until - self.world.now() <= 366 * 86400:
                until = 0
            new = Membership(
                standing.account, "restricted", until_date=until, in_chat=standing.is_member
            )
        elif standing.status == "restricted":
            new = Membership(standing.account, "member" if standing.in_chat else "left")
        else:
            return True
        self.world.membership_changed(group, standing, new, bot)
        return True

    # -- invite links ---------------------------------------------------------------------

    def _invite_group(self, params: Params) -> Group:
        group = self._group(params["chat_id"], "can't invite members to a private chat")
        self._require(group, "can_invite_users", _INVITE_RIGHTS)
        return group

    def create_chat_invite_link(self, params: Params) -> Any:
        group = self._invite_group(params)
        name = params.get("name")
        if name is not None and len(name) > 32:
            raise ApiError.bad_request("invite link name is too long")
        limit = params.get("member_limit")
        if limit is not None and not 1 <= limit <= 99999:
            raise ApiError.bad_request("MEMBER_LIMIT_INVALID")
        if limit is not None and params.get("creates_join_request"):
            raise ApiError.bad_request(
                "member_limit can't be specified for links requiring administrator approval"
            )
        expire = params.get("expire_date")
        if expire is not None and expire <= self.world.now():
            raise ApiError.bad_request("EXPIRE_DATE_INVALID")
        link = InviteLink(
            link=self.world.new_invite_link(),
            creator=self.world.bot,
            name=name,
            expire_date=expire,
            member_limit=limit,
            creates_join_request=bool(params.get("creates_join_request")),
        )
        group.invite_links[link.link] = link
        return link.to_api()

    def export_chat_invite_link(self, params: Params) -> Any:
        group = self._invite_group(params)
        for link in group.invite_links.values():
            if link.is_primary:
                link.is_primary, link.is_revoked = False, True
        primary = InviteLink(self.world.new_invite_link(), self.world.bot, is_primary=True)
        group.invite_links[primary.link] = primary
        return primary.link

    def revoke_chat_invite_link(self, params: Params) -> Any:
        group = self._invite_group(params)
        link = group.invite_links.get(params["invite_link"])
        if link is None:
            raise ApiError.bad_request("INVITE_HASH_EXPIRED")
        link.is_revoked = True
        if link.is_primary:
            # "If the primary link is revoked, a new link is automatically generated."
            link.is_primary = False
            primary = InviteLink(self.world.new_invite_link(), self.world.bot, is_primary=True)
            group.invite_links[primary.link] = primary
        return link.to_api()

    # -- commands and the bot's profile ---------------------------------------------------

    def _scope(self, params: Params) -> tuple[ScopeKey, str]:
        language = params.get("language_code", "")
        if language and not _LANGUAGE.fullmatch(language):
            raise ApiError.bad_request("LANG_CODE_INVALID")
        scope = params.get("scope") or {"type": "default"}
        kind = scope["type"]
        if kind not in ("chat", "chat_administrators", "chat_member"):
            return ScopeKey(kind), language
        chat = self._chat(scope["chat_id"])
        if kind != "chat" and isinstance(chat, PrivateChat):
            raise ApiError.bad_request("BOT_COMMAND_SCOPE_INVALID")
        user_id = None
        if kind == "chat_member":
            user = self._account(scope["user_id"])
            if isinstance(chat, Group) and not chat.member(user).is_member:
                raise ApiError.bad_request("user not found")
            user_id = user.id
        return ScopeKey(kind, chat.id, user_id), language

    def set_my_commands(self, params: Params) -> Any:
        commands = params["commands"]
        if len(commands) > 100:
            raise ApiError.bad_request("BOT_COMMANDS_TOO_MUCH")
        for command in commands:
            if not _COMMAND.fullmatch(command["command"]):
                raise ApiError.bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(command["description"].strip()) <= 256:
                raise ApiError.bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        key = self._scope(params)
        if commands:
            self.world.commands[key] = [
                {"command": c["command"], "description": c["description"]} for c in commands
            ]
        else:
            self.world.commands.pop(key, None)
        return True

    def get_my_commands(self, params: Params) -> Any:
        return list(self.world.commands.get(self._scope(params), []))

    def delete_my_commands(self, params: Params) -> Any:
        self.world.commands.pop(self._scope(params), None)
        return True

    def set_default_admin_rights(self, params: Params) -> Any:
        rights = params.get("rights")
        for_channels = bool(params.get("for_channels"))
        if rights is None:
            self.world.default_admin_rights.pop(for_channels, None)
        else:
            self.world.default_admin_rights[for_channels] = rights
        return True

    def get_default_admin_rights(self, params: Params) -> Any:
        none = {"is_anonymous": False} | AdminRights(can_manage_chat=False).to_api()
        return none | self.world.default_admin_rights.get(bool(params.get("for_channels")), {})

    def _bot_text_setter(self, kind: str) -> Callable[[Params], Any]:
        key, longest = _BOT_TEXTS[kind]

        def set_text(params: Params) -> Any:
            text = params.get(key, "")
            if len(text) > longest:
                raise ApiError.bad_request(f"{key.replace('_', ' ')} is too long")
            self.world.texts[(kind, params.get("language_code", ""))] = text
            return True

        return set_text

    def _bot_text_getter(self, kind: str) -> Callable[[Params], Any]:
        key, _ = _BOT_TEXTS[kind]

        def get_text(params: Params) -> Any:
            language = params.get("language_code", "")
            texts = self.world.texts
            default = self.world.bot.first_name if kind == "name" else ""
            return {key: texts.get((kind, language)) or texts.get((kind, ""), default)}

        return get_text


def _https(url: str) -> bool:
    """A Mini App's address: Telegram opens only HTTPS ones, with a host."""
    parts = urlsplit(url)
    return parts.scheme == "https" and bool(parts.hostname) and " " not in url
